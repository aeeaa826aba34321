import path from "node:path";
import { runSession } from "../../action/src/session/run-session.ts";
import type { RunStageDeps } from "../../action/src/stage/run-stage-deps.ts";
import { HOOKS_DIR, type Sandbox } from "../support/fake-model-sandbox.ts";

/**
 * `runStage` deps for the real Claude Code in a sandbox checkout, talking to the scripted model at
 * `modelUrl` with loom's hooks from the sources; `overrides` sets what a test watches (uploads, the
 * session runner, a cancel signal…).
 */
export function sandboxDeps(
  box: Sandbox,
  modelUrl: string,
  overrides: Partial<RunStageDeps> & Pick<RunStageDeps, "uploadArtifact">,
): RunStageDeps {
  return {
    workspace: box.repo,
    tempDir: path.join(box.dir, "tmp"),
    sessionEnv: box.claudeEnv(modelUrl),
    checkEnv: { PATH: process.env.PATH },
    knownSecrets: ["sk-ant-test-not-a-key"],
    hooks: { dir: HOOKS_DIR, extension: "ts", nodePath: process.execPath },
    runSession,
    loadPrevious: () => Promise.resolve({ notes: [] }),
    writeSummary: () => Promise.resolve(),
    log: () => undefined,
    now: Date.now,
    ...overrides,
  };
}
