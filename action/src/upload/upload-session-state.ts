import { mkdir, realpath, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import {
  MAX_SESSION_STATE_BYTES,
  SESSION_STATE_ARTIFACT,
  SESSION_STATE_MANIFEST,
  SESSION_STATE_TRANSCRIPT,
  SessionId,
  type SessionStateManifest,
} from "../../../src/artifacts/session-state.ts";
import { readAsSessionUser } from "../isolation/read-as-session-user.ts";
import { locateClaudeConfigDir, locateSessionTranscript } from "../session/claude-project-dir.ts";
import type { RunStageDeps } from "../stage/run-stage-deps.ts";

export type SessionStateOrigin = { sessionId: string; stageId: string; attempt: number };

/**
 * Uploads Claude Code's transcript of the session (what `claude --resume` reads) as `loom-session`,
 * so a later `/loom continue` can resume it on another runner. `deps.uploadArtifact` is the
 * redacting one (`redactWaysOut`): the job's secrets, plain and encoded, and token-shaped text are
 * replaced in every line, which stays valid JSON. Read with the session user's rights (it owns the
 * folder). Returns why nothing was uploaded, or null.
 */
export async function uploadSessionState(
  deps: RunStageDeps,
  origin: SessionStateOrigin,
): Promise<string | null> {
  if (!SessionId.safeParse(origin.sessionId).success) return "the session reported no session id";
  const configDir = locateClaudeConfigDir(deps.sandbox, deps.sessionEnv, homedir());
  const cwd = await realpath(deps.workspace);
  const file = locateSessionTranscript(configDir, cwd, origin.sessionId);
  const transcript = await readAsSessionUser(deps.sandbox, file, MAX_SESSION_STATE_BYTES);
  if (transcript === null)
    return `Claude Code's transcript was not found, unreadable or over ${MAX_SESSION_STATE_BYTES / 1024 / 1024} MiB`;
  const dir = path.join(deps.tempDir, "session-state");
  await mkdir(dir, { recursive: true });
  const manifest: SessionStateManifest = {
    version: 1,
    session_id: origin.sessionId,
    stage_id: origin.stageId,
    attempt: origin.attempt,
  };
  const files = [path.join(dir, SESSION_STATE_MANIFEST), path.join(dir, SESSION_STATE_TRANSCRIPT)];
  await writeFile(files[0] ?? "", `${JSON.stringify(manifest)}\n`);
  await writeFile(files[1] ?? "", transcript);
  await deps.uploadArtifact(SESSION_STATE_ARTIFACT, files, dir);
  return null;
}
