import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parse } from "yaml";

const ROOT = path.resolve(import.meta.dirname, "../../..");
export const ACTION_ENTRIES = {
  /** The TypeScript entry (Node 24 strips the types): what the brief asks the e2e run to start. */
  src: path.join(ROOT, "action/src/main.ts"),
  /** The committed bundle `action.yml` runs on GitHub. */
  dist: path.join(ROOT, "action/dist/main.js"),
} as const;
export type ActionEntry = keyof typeof ACTION_ENTRIES;

/**
 * The entry e2e runs start by default: the committed bundle, as a caller's workflow runs it
 * (`test/action/dist-fresh.test.ts` fails when it is not what the sources build to). Loading the
 * sources costs each job about a second of CPU more (hundreds of modules, types stripped) and each
 * Claude Code hook the same (`hooks/*.ts` instead of `dist/hooks/*.js`): minutes of the suite.
 * `LOOM_E2E_ENTRY=src` runs the sources, while working on them without rebuilding.
 */
export function defaultActionEntry(env: NodeJS.ProcessEnv = process.env): ActionEntry {
  return env["LOOM_E2E_ENTRY"] === "src" ? "src" : "dist";
}

type ActionInput = { default?: string };

/** The inputs `action/action.yml` declares, with their defaults (as the runner fills them in). */
export function readActionInputs(): Map<string, string> {
  const text = readFileSync(path.join(ROOT, "action/action.yml"), "utf8");
  const declared = (parse(text) as { inputs: Record<string, ActionInput> }).inputs;
  return new Map(Object.entries(declared).map(([name, spec]) => [name, String(spec.default ?? "")]));
}

export type JobEnvironment = {
  /** What GitHub sets for the job (`emulator.runnerEnv(runId)`: GITHUB_*, the job token, the runtime token). */
  runner: Record<string, string>;
  /** `with:` values; inputs not given take action.yml's default (`${{ github.token }}` → the job token). */
  with: Record<string, string>;
  workspace: string;
  /** The job's private folder: RUNNER_TEMP, HOME, the summary and output files live here. */
  jobDir: string;
  jobName: string;
  /** Extra variables (the step's `env:`), e.g. the model key. */
  env: Record<string, string>;
};

/** The environment GitHub's runner gives a JavaScript action's process. */
export async function buildActionEnv(job: JobEnvironment): Promise<Record<string, string>> {
  const home = path.join(job.jobDir, "home");
  const temp = path.join(job.jobDir, "temp");
  await mkdir(home, { recursive: true });
  await mkdir(temp, { recursive: true });
  const files = {
    GITHUB_STEP_SUMMARY: path.join(job.jobDir, "step_summary.md"),
    GITHUB_OUTPUT: path.join(job.jobDir, "output.txt"),
    GITHUB_ENV: path.join(job.jobDir, "env.txt"),
    GITHUB_STATE: path.join(job.jobDir, "state.txt"),
    GITHUB_PATH: path.join(job.jobDir, "path.txt"),
  };
  for (const file of Object.values(files)) await writeFile(file, "");
  const token = job.runner["GITHUB_TOKEN"] ?? "";
  const inputs: Record<string, string> = {};
  for (const [name, fallback] of readActionInputs()) {
    const value = job.with[name] ?? (fallback.includes("github.token") ? token : fallback);
    inputs[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] = value;
  }
  // A JavaScript action does not see GITHUB_TOKEN unless the step passes it: only the input.
  const { GITHUB_TOKEN: _token, ...runner } = job.runner;
  return {
    PATH: process.env["PATH"] ?? "/usr/bin:/bin",
    HOME: home,
    RUNNER_TEMP: temp,
    RUNNER_OS: "Linux",
    ...runner,
    GITHUB_JOB: job.jobName,
    GITHUB_WORKSPACE: job.workspace,
    ...files,
    ...inputs,
    ...job.env,
  };
}

export type ActionExit = { code: number | null; signal: string | null; log: string; timedOut: boolean };

export type RunningAction = {
  done: Promise<ActionExit>;
  /** Kills the action's process group at once (a lost runner, the end of a test). */
  kill(): void;
  /** Cancels the step the way GitHub's runner does (see `CANCEL_SIGNALS`). */
  cancel(): void;
};

/**
 * How GitHub's runner cancels a step: SIGINT to the step's process, SIGTERM if it is still there
 * 7.5 s later, then it kills the process tree 2.5 s after that ("Workflow cancellation reference").
 */
export const CANCEL_SIGNALS = { sigtermAfterMs: 7_500, killAfterMs: 2_500 } as const;

/** Starts the action entry in its own process group (so a kill stops Claude Code too). */
export function startAction(
  entry: ActionEntry,
  env: Record<string, string>,
  cwd: string,
  timeoutMs: number,
): RunningAction {
  const file = ACTION_ENTRIES[entry];
  const code = "const m = await import(process.argv[1]); await m.main?.();";
  const args = entry === "src" ? ["--input-type=module", "-e", code, pathToFileURL(file).href] : [file];
  const child = spawn(process.execPath, args, {
    cwd,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const chunks: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk));
  let timedOut = false;
  const kill = (): void => {
    if (child.exitCode !== null || child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, timeoutMs);
  const cancelTimers: NodeJS.Timeout[] = [];
  const signal = (name: NodeJS.Signals): void => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(name);
  };
  const cancel = (): void => {
    if (cancelTimers.length > 0) return;
    signal("SIGINT");
    cancelTimers.push(
      setTimeout(() => {
        signal("SIGTERM");
        cancelTimers.push(setTimeout(kill, CANCEL_SIGNALS.killAfterMs));
      }, CANCEL_SIGNALS.sigtermAfterMs),
    );
  };
  const done = new Promise<ActionExit>((resolve) => {
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer);
      for (const t of cancelTimers) clearTimeout(t);
      resolve({ code: exitCode, signal, log: Buffer.concat(chunks).toString("utf8"), timedOut });
    });
  });
  return { done, kill, cancel };
}

/** The `key=value` / heredoc pairs an action wrote to GITHUB_OUTPUT. */
export async function readOutputs(file: string): Promise<Record<string, string>> {
  const text = await readFile(file, "utf8");
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name = "", marker = ""] = heredoc;
      const value: string[] = [];
      for (i += 1; i < lines.length && lines[i] !== marker; i++) value.push(lines[i] ?? "");
      outputs[name] = value.join("\n");
    } else if (line.includes("=")) {
      outputs[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
    }
  }
  return outputs;
}
