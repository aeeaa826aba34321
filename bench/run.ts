#!/usr/bin/env node
// Benchmarks that print numbers: `npm run bench`. No assertions; see BENCHMARKS.md for results.
import { benchApi } from "./bench-api.ts";
import { benchParse } from "./bench-parse.ts";
import { benchReducer } from "./bench-reducer.ts";
import { benchUnreachable } from "./bench-unreachable.ts";

/** [short name for `npm run bench -- <name>`, title, benchmark] */
const sections: [string, string, () => void | Promise<void>][] = [
  ["parse", "plan parsing and validation", benchParse],
  ["reducer", "orchestrator reducer", benchReducer],
  [
    "unreachable",
    "GitHub unreachable: a delivery's hold on the worker, and SIGTERM (real app process)",
    benchUnreachable,
  ],
  ["api", "GitHub API cost of a whole plan (emulator, real app, action and Claude Code)", benchApi],
];

const only = process.argv[2]?.toLowerCase();
const chosen = sections.filter(
  ([short, title]) => only === undefined || short === only || title.toLowerCase().includes(only),
);
if (chosen.length === 0) {
  console.error(
    `no benchmark section "${only}"; choose one of: ${sections.map(([short]) => short).join(", ")}`,
  );
  process.exit(1);
}
console.log(`loom benchmarks — node ${process.version}, ${new Date().toISOString()}`);
for (const [, title, run] of chosen) {
  console.log(`\n## ${title}`);
  await run();
}
