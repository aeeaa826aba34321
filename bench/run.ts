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

const only = process.argv[2];
console.log(`loom benchmarks — node ${process.version}, ${new Date().toISOString()}`);
for (const [name, run] of sections) {
  if (only && !name.includes(only)) continue;
  console.log(`\n## ${name}`);
  await run();
}
