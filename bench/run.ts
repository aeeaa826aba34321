#!/usr/bin/env node
// Benchmarks that print numbers: `npm run bench`. No assertions; see BENCHMARKS.md for results.
import { benchApi } from "./bench-api.ts";
import { benchParse } from "./bench-parse.ts";
import { benchReducer } from "./bench-reducer.ts";

const sections: [string, () => void | Promise<void>][] = [
  ["plan parsing and validation", benchParse],
  ["orchestrator reducer", benchReducer],
  ["GitHub API cost of a whole plan (emulator, real app, action and Claude Code)", benchApi],
];

const only = process.argv[2]?.toLowerCase();
const chosen = sections.filter(([name]) => only === undefined || name.toLowerCase().includes(only));
if (chosen.length === 0) {
  console.error(`no benchmark section matches "${only}"; sections: ${sections.map(([n]) => n).join("; ")}`);
  process.exit(1);
}
console.log(`loom benchmarks — node ${process.version}, ${new Date().toISOString()}`);
for (const [name, run] of chosen) {
  console.log(`\n## ${name}`);
  await run();
}
