/**
 * The targets of issue 13, one row each, filled in by the sections that measure them; `npm run
 * bench` prints them last with a pass or miss mark. A row no section measured in this run (a
 * section not chosen, or left out by `--quick`) says so instead of passing.
 */
export type Measured = { value: string; pass: boolean };

export type Target = { id: string; measure: string; target: string };

export const TARGETS: readonly Target[] = [
  {
    id: "requests",
    measure: "App requests per stage: diamond / chain of 8 / 50-stage lattice",
    target: "≤ 12 each; 50 stages within 20 % of the diamond",
  },
  {
    id: "check-run-writes",
    measure: "check-run writes per stage (plan run's share included)",
    target: "≤ 8 on every shape; no higher at 50 stages than at 4",
  },
  {
    id: "run-reads",
    measure: "run and heartbeat reads per running stage (production reconcile: 60 s)",
    target: "≤ 1 a minute",
  },
  {
    id: "hop",
    measure: "hop: dependency merged → dependent dispatched, p50 / p99 (50 ms latency, pacing on)",
    target: "≤ 500 ms / ≤ 1,500 ms",
  },
  {
    id: "makespan",
    measure: "makespan / critical path (diamond, chain of 8; 30 s sessions)",
    target: "≤ 1.02",
  },
  { id: "roots", measure: "50 root stages all dispatched (80 writes a minute enforced)", target: "≤ 60 s" },
  { id: "parse", measure: "500-stage plan parse + validate (median)", target: "≤ 50 ms" },
  {
    id: "store",
    measure: "250-stage plan: store commits per stage / state bytes written",
    target: "≤ 20 / ≤ 50 MB",
  },
  { id: "rss", measure: "App RSS with 100 active 20-stage plans", target: "≤ 256 MB" },
  {
    id: "unreachable",
    measure: "GitHub unreachable: a delivery's hold on the worker; SIGTERM to exit",
    target: "≤ 10 s, others flowing; ≤ 10 s, nothing lost",
  },
  {
    id: "ack",
    measure: "webhook ack p99 at 200 deliveries a second (SQLite / PostgreSQL)",
    target: "≤ 20 ms",
  },
];

/** What this run measured, by target id. */
export const results = new Map<string, Measured>();

export function record(id: string, measured: Measured): void {
  if (!TARGETS.some((target) => target.id === id)) throw new Error(`no target ${id}`);
  results.set(id, measured);
}

/** The targets table: every row, with ✅ pass, ❌ miss, or — not measured in this run. */
export function printTargets(): void {
  console.log("| measure | measured | target | |");
  console.log("|---|---|---|---|");
  for (const { id, measure, target } of TARGETS) {
    const measured = results.get(id);
    const mark =
      measured === undefined ? "— not measured in this run" : measured.pass ? "✅ pass" : "❌ miss";
    console.log(`| ${measure} | ${measured?.value ?? "—"} | ${target} | ${mark} |`);
  }
}
