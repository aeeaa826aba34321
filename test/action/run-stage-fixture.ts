import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile, cp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RunStageDeps } from "../../action/src/run-stage.ts";
import type { RunSessionOptions } from "../../action/src/session/run-session.ts";
import type { SessionOutcome } from "../../action/src/session/session-outcome.ts";
import { RunStageInputs } from "../../action/src/run-stage-inputs.ts";

export const PLAN_PATH = "doc/plans/PLAN-demo.md";

/** One stage that writes greet.txt saying hello, checked by grep. */
export const GREETER_STAGE = `
- id: build
  name: Build the greeter
  description: Write greet.txt saying hello
  acceptance:
    - "grep hello greet.txt"
`;

/** A plan in the reference CLI's format with one stage whose YAML body is given. */
export function planText(stageYaml: string): string {
  return [
    "# Plan: Demo",
    "",
    "<!-- loom METADATA -->",
    "",
    "```yaml",
    "loom:",
    "  version: 1",
    "  stages:",
    ...stageYaml
      .trim()
      .split("\n")
      .map((line) => `    ${line}`),
    "```",
    "",
    "<!-- END loom METADATA -->",
    "",
  ].join("\n");
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "agent",
      GIT_AUTHOR_EMAIL: "agent@example.com",
      GIT_COMMITTER_NAME: "agent",
      GIT_COMMITTER_EMAIL: "agent@example.com",
    },
  }).trim();
}

export type Fixture = {
  root: string;
  workspace: string;
  tempDir: string;
  uploads: Map<string, string>;
  summaries: string[];
};

/** A checkout of the stage branch with the plan committed, and a scratch dir outside it. */
export async function makeFixture(
  stageYaml: string,
  t: { after: (fn: () => Promise<void>) => void },
): Promise<Fixture> {
  const root = await mkdtemp(path.join(tmpdir(), "loom-run-stage-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  const workspace = path.join(root, "work");
  await mkdir(path.join(workspace, "doc/plans"), { recursive: true });
  await writeFile(path.join(workspace, PLAN_PATH), planText(stageYaml));
  git(workspace, "init", "-q", "-b", "loom/PLAN-demo/build");
  git(workspace, "add", ".");
  git(workspace, "commit", "-q", "-m", "plan");
  return { root, workspace, tempDir: path.join(root, "tmp"), uploads: new Map(), summaries: [] };
}

export function inputs(overrides: Record<string, string> = {}): RunStageInputs {
  return RunStageInputs.parse({
    plan_path: PLAN_PATH,
    plan_id: "PLAN-demo",
    stage_id: "build",
    attempt: "1",
    kind: "stage",
    branch: "loom/PLAN-demo/build",
    key: "blob123:build:1",
    check_timeout_minutes: "1",
    ...overrides,
  });
}

/** Deps with a fake session runner; uploads are copied into `<root>/uploads/<name>/`. */
export function deps(
  f: Fixture,
  runSession: (o: RunSessionOptions) => Promise<SessionOutcome>,
  extra: Partial<RunStageDeps> = {},
): RunStageDeps {
  return {
    workspace: f.workspace,
    tempDir: f.tempDir,
    sessionEnv: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sk-ant-test-secret-key-000000" },
    checkEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
    knownSecrets: ["sk-ant-test-secret-key-000000"],
    hooks: null,
    runSession,
    uploadArtifact: async (name, files, rootDirectory) => {
      const dest = path.join(f.root, "uploads", name);
      await mkdir(dest, { recursive: true });
      for (const file of files) await cp(file, path.join(dest, path.relative(rootDirectory, file)));
      f.uploads.set(name, dest);
    },
    loadPrevious: () => Promise.resolve({ notes: [] }),
    writeSummary: (markdown) => {
      f.summaries.push(markdown);
      return Promise.resolve();
    },
    log: () => undefined,
    now: Date.now,
    ...extra,
  };
}

/** A SessionOutcome as runSession reports a finished session. */
export async function finishedSession(
  o: RunSessionOptions,
  overrides: Partial<SessionOutcome> = {},
): Promise<SessionOutcome> {
  await mkdir(path.dirname(o.transcriptPath), { recursive: true });
  await writeFile(
    o.transcriptPath,
    `{"type":"system","subtype":"init","session_id":"s-1"}\n{"type":"result","key":"sk-ant-test-secret-key-000000"}\n`,
  );
  return {
    status: "completed",
    reason: "the session finished",
    sessionId: "s-1",
    turns: 3,
    tokens: { input: 100, output: 50, cache_read: 10, cache_creation: 5 },
    costUsd: 0.02,
    contextPercent: 12,
    lastHeartbeat: null,
    permissionDenials: [],
    resultText: "done",
    reviewText: null,
    transcriptPath: o.transcriptPath,
    deviations: [],
    durationMs: 1000,
    exit: { code: 0, signal: null },
    stderrTail: "",
    ...overrides,
  } as SessionOutcome;
}

export async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, "utf8")) as unknown;
}
