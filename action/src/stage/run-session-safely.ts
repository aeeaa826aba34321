import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Heartbeat } from "../../../src/artifacts/heartbeat.ts";
import type { Stage } from "../../../src/plan/plan.ts";
import { redactSecrets } from "../../../src/redact/redact-secrets.ts";
import type { LoadedSessionCaps } from "../config/load-session-caps.ts";
import { CheckoutTamperedError, lendPaths, type Lease } from "../isolation/lend-paths.ts";
import { listReachablePaths } from "../isolation/list-reachable-paths.ts";
import type { RunStageInputs } from "../run-stage-inputs.ts";
import { locateSessionFiles } from "../session/claude-args.ts";
import { restoreSessionState } from "../session/restore-session-state.ts";
import { prepareStateDir, type RunSessionOptions } from "../session/run-session.ts";
import type { SessionOutcome } from "../session/session-outcome.ts";
import * as names from "../upload/artifact-port.ts";
import type { ResumableSession } from "./load-continue.ts";
import { optional } from "./optional.ts";
import type { RunStageDeps } from "./run-stage-deps.ts";
import { stoppedOutcome } from "./stopped-outcome.ts";

/**
 * Writes the assignment, runs the Claude Code session with throttled heartbeat uploads, and turns
 * a runner that throws into a `crashed` outcome (never an exception). With an isolating sandbox the
 * checkout, the session's state folder and the learnings folder are lent to the session user for
 * the session and taken back (its processes killed, `.git` configuration restored) before anything
 * else reads them. With `resume`, that earlier session's transcript is put where Claude Code looks
 * for it (before the lending, so the session user owns it) and `prompt` is its next message.
 */
export async function runSessionSafely(
  inputs: RunStageInputs,
  deps: RunStageDeps,
  stage: Stage,
  prompt: string,
  caps: LoadedSessionCaps,
  learningsFile: string | undefined,
  resume?: ResumableSession,
): Promise<SessionOutcome> {
  const stateDir = path.join(deps.tempDir, "session");
  await mkdir(stateDir, { recursive: true });
  const assignmentFile = path.join(stateDir, "assignment.md");
  await writeFile(assignmentFile, prompt);
  const transcriptPath = path.join(deps.tempDir, "transcript", names.TRANSCRIPT_FILE);
  let heartbeats = 0;
  let lastUploadAt = -Infinity;
  const gap = deps.heartbeatGapMs ?? names.MIN_HEARTBEAT_UPLOAD_GAP_MS;
  const publishHeartbeat = async (heartbeat: Heartbeat): Promise<void> => {
    if (heartbeats >= names.MAX_HEARTBEAT_ARTIFACTS) return;
    if (deps.now() - lastUploadAt < gap) return;
    lastUploadAt = deps.now();
    heartbeats += 1;
    const dir = path.join(deps.tempDir, "heartbeats", String(heartbeats));
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, names.HEARTBEAT_FILE);
    await writeFile(file, `${JSON.stringify(heartbeat)}\n`);
    await deps.uploadArtifact(`${names.HEARTBEAT_ARTIFACT_PREFIX}${heartbeats}`, [file], dir);
  };
  const sandbox = deps.sandbox;
  const options: RunSessionOptions = {
    prompt,
    ...optional("sandbox", sandbox),
    cwd: deps.workspace,
    claudePath: inputs.claude_path,
    env: deps.sessionEnv,
    stageId: stage.id,
    attempt: inputs.attempt,
    stateDir,
    transcriptPath,
    hooks: deps.hooks,
    allowedTools: inputs.allowed_tools,
    ...optional("signal", deps.signal),
    assignmentFile,
    ...optional("learningsFile", learningsFile),
    contextBudgetPercent: stage.context_budget ?? inputs.context_budget_percent ?? 65,
    silenceTimeoutMs: inputs.silence_timeout_minutes * 60_000,
    publishHeartbeat,
    // The uploader above throttles and caps real uploads; runSession's own cap counts calls.
    toolHeartbeatGapMs: gap,
    maxHeartbeats: Number.MAX_SAFE_INTEGER,
    log: deps.log,
    now: () => new Date(deps.now()),
    ...optional("model", stage.model ?? inputs.model),
    ...optional("effort", stage.reasoning_effort),
    ...optional("maxBudgetUsd", caps.maxBudgetUsd),
    ...optional("maxTurns", caps.maxTurns),
    ...optional("resume", resume?.sessionId),
  };
  const crashed = (error: unknown): SessionOutcome => {
    const text = redactSecrets(String(error), deps.knownSecrets);
    deps.log("the session runner failed", { error: text });
    return stoppedOutcome(
      "crashed",
      stage.id,
      inputs.attempt,
      deps.now(),
      transcriptPath,
      `the session runner failed: ${text.slice(0, 300)}`,
    );
  };
  let lease: Lease | undefined;
  let outcome: SessionOutcome;
  try {
    if (resume !== undefined) await restoreSessionState(deps, resume);
    if (sandbox !== undefined) {
      // Before lending: through sudo the action's user cannot write there afterwards.
      prepareStateDir(locateSessionFiles(stateDir));
      lease = await lendPaths(sandbox, {
        checkout: deps.workspace,
        writable: [stateDir, ...(learningsFile === undefined ? [] : [path.dirname(learningsFile)])],
        reachable: listReachablePaths(deps.sessionEnv.PATH, [
          inputs.claude_path,
          ...(deps.hooks === null ? [] : [deps.hooks.dir, deps.hooks.nodePath]),
        ]),
      });
    }
    outcome = await deps.runSession(options);
  } catch (error) {
    outcome = crashed(error);
  }
  try {
    await lease?.reclaim();
  } catch (error) {
    // A checkout whose .git the session replaced must not reach the action's git: drop it.
    if (error instanceof CheckoutTamperedError)
      await rm(path.join(deps.workspace, ".git"), { recursive: true, force: true });
    return crashed(error);
  }
  return outcome;
}
