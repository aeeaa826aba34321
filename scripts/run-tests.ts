/**
 * `npm run test:only`: every `test/**\/*.test.ts`, in two `node --test` runs side by side.
 *
 * - The folders in `SHARED` hold tests of pure code and of the App against in-process fakes: no
 *   child processes of their own, no fixed ports, nothing global left behind. They run in one
 *   process (`--test-isolation=none`): starting a Node process per file (loading TypeScript and
 *   the App's modules again) cost about twice the CPU of the tests themselves, some 90 s of the
 *   suite on two cores.
 * - Every other file (end-to-end runs, the action, real git, real Claude Code, the stores, the
 *   CLI) runs in its own process, two at a time (`ISOLATED_ARGS`).
 *
 * Arguments are passed on to both runs (e.g. `--test-name-pattern=…`). Exits 1 when either run
 * fails, after both have ended.
 */
import { spawn } from "node:child_process";
import { globSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");

/**
 * Isolated files run two at a time, each in a V8 without helper threads (`--single-threaded`):
 * measured on the CI kind (two cores), a process per file spent a sixth of its CPU in V8's
 * background GC and compiler threads (an end-to-end file 29.5 s of CPU, 23.6 s single-threaded;
 * a third file at once only added contention). The shared process, long-lived, keeps them (it
 * took 9 s more without).
 */
export const ISOLATED_ARGS = ["--single-threaded", "--test-concurrency=2"];

/** Test folders (under `test/`) whose files share one process. */
export const SHARED = new Set([
  "app",
  "config",
  "github",
  "graph",
  "knowledge",
  "orchestrator",
  "plan",
  "redact",
  "stage",
  "status",
]);

/**
 * Folders of long end-to-end runs (a minute or more a file on a slow machine): their files start
 * first, so the run does not end on one of them with the other core idle.
 */
export const LONG_FIRST = ["e2e", "security", "publish"];

/** Every test file, split into those sharing one process and those isolated (long folders first). */
export function partitionTests(files: string[]): { shared: string[]; isolated: string[] } {
  const shared: string[] = [];
  const isolated: string[] = [];
  for (const file of files) {
    const [top, folder] = file.split("/");
    (top === "test" && folder !== undefined && SHARED.has(folder) ? shared : isolated).push(file);
  }
  const rank = (file: string): number => {
    const at = LONG_FIRST.indexOf(file.split("/")[1] ?? "");
    return at === -1 ? LONG_FIRST.length : at;
  };
  // Array.prototype.sort is stable: files keep their order within a rank.
  isolated.sort((a, b) => rank(a) - rank(b));
  return { shared, isolated };
}

function run(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: "inherit" });
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<void> {
  const extra = process.argv.slice(2);
  const files = globSync("test/**/*.test.ts", { cwd: ROOT }).sort();
  const { shared, isolated } = partitionTests(files);
  const common = ["--test", "--test-timeout=180000", ...extra];
  const codes = await Promise.all([
    shared.length > 0 ? run([...common, "--test-isolation=none", ...shared]) : Promise.resolve(0),
    isolated.length > 0 ? run([...ISOLATED_ARGS, ...common, ...isolated]) : Promise.resolve(0),
  ]);
  process.exitCode = codes.some((code) => code !== 0) ? 1 : 0;
}

if (import.meta.main) await main();
