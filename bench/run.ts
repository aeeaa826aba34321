#!/usr/bin/env node
// Benchmarks that print numbers: `npm run bench`. No assertions; see BENCHMARKS.md for results.
// `npm run bench -- <section>` runs one section; `npm run bench -- --quick` runs the quick ones
// (under a minute). The targets table of issue 13 comes last, each row marked pass or miss.
import { benchAck } from "./bench-ack.ts";
import { benchApi } from "./bench-api.ts";
import { benchHop } from "./bench-hop.ts";
import { benchMakespan } from "./bench-makespan.ts";
import { benchParse } from "./bench-parse.ts";
import { benchReads } from "./bench-reads.ts";
import { benchReducer } from "./bench-reducer.ts";
import { benchRoots } from "./bench-roots.ts";
import { benchRss } from "./bench-rss.ts";
import { benchUnreachable } from "./bench-unreachable.ts";
import { printTargets } from "./targets.ts";

type Options = { quick: boolean };

/** [short name for `npm run bench -- <name>`, title, benchmark, part of --quick] */
const sections: [string, string, (options: Options) => void | Promise<void>, boolean][] = [
  ["parse", "plan parsing and validation", benchParse, true],
  ["reducer", "orchestrator reducer", benchReducer, true],
  [
    "unreachable",
    "GitHub unreachable: a delivery's hold on the worker, and SIGTERM (real app process)",
    benchUnreachable,
    false,
  ],
  [
    "hop",
    "hop: dependency merged → dependent dispatched (emulator at 50 ms latency, production pacing)",
    benchHop,
    true,
  ],
  ["roots", "50 root stages dispatched, 80 writes a minute enforced (production pacing)", benchRoots, false],
  ["ack", "webhook ack at 200 deliveries a second (real app process)", benchAck, true],
  ["rss", "App memory with 100 active 20-stage plans (real app process)", benchRss, false],
  ["makespan", "makespan over the critical path (30 s sessions, production pacing)", benchMakespan, false],
  ["api", "GitHub API cost of a whole plan (emulator, real app, action and Claude Code)", benchApi, false],
  ["reads", "reads of one long session at production cadence (simulated clock, ETags on)", benchReads, true],
];

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const only = args.find((arg) => !arg.startsWith("--"))?.toLowerCase();
const chosen = sections.filter(
  ([short, title, , inQuick]) =>
    (only === undefined || short === only || title.toLowerCase().includes(only)) &&
    (!quick || inQuick || only !== undefined),
);
if (chosen.length === 0) {
  console.error(
    `no benchmark section "${only}"; choose one of: ${sections.map(([short]) => short).join(", ")}`,
  );
  process.exit(1);
}
console.log(
  `loom benchmarks — node ${process.version}, ${new Date().toISOString()}${quick ? " (--quick)" : ""}`,
);
for (const [, title, run] of chosen) {
  console.log(`\n## ${title}`);
  await run({ quick });
}
console.log("\n## Targets (issue 13)");
printTargets();
