import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Heartbeat } from "../../../src/artifacts/heartbeat.ts";
import { StageResult } from "../../../src/artifacts/stage-result.ts";
import {
  checkSessionTranscript,
  MAX_SESSION_STATE_BYTES,
  SESSION_STATE_ARTIFACT,
  SESSION_STATE_MANIFEST,
  SESSION_STATE_TRANSCRIPT,
  SessionStateManifest,
} from "../../../src/artifacts/session-state.ts";
import {
  HEARTBEAT_ARTIFACT_PREFIX,
  HEARTBEAT_FILE,
  RESULT_ARTIFACT,
  RESULT_FILE,
  type ArtifactReader,
  type ArtifactSource,
} from "./artifact-port.ts";

/** Claude Code's state of the previous run's session, ready to resume, or why there is none. */
export type PreviousSessionState =
  { ok: true; sessionId: string; transcript: string } | { ok: false; reason: string };

export type PreviousSession = {
  handoff?: string;
  lastHeartbeat?: Heartbeat;
  /** The previous run's `loom-result` (a continue session's handoff prompt summarizes it). */
  result?: StageResult;
  /** Only when asked for (`withSessionState`): its `loom-session`. */
  sessionState?: PreviousSessionState;
  notes: string[];
};

export type LoadPreviousOptions = { withSessionState?: boolean };

async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, "utf8")) as unknown;
}

type Listed = Awaited<ReturnType<ArtifactReader["list"]>>;

/**
 * What a recovery or continue session inherits from the previous run: its `loom-result` (the
 * handoff in it), its newest heartbeat and, for a continue session, Claude Code's own session state
 * (`loom-session`). Missing or invalid pieces are left out and noted (a run killed with its runner
 * leaves no result; artifacts expire); never throws for the previous run's content.
 */
export async function loadPreviousSession(
  reader: ArtifactReader,
  source: ArtifactSource,
  directory: string,
  options: LoadPreviousOptions = {},
): Promise<PreviousSession> {
  const notes: string[] = [];
  const previous: PreviousSession = { notes };
  const artifacts = await reader.list(source);
  const result = artifacts.find((a) => a.name === RESULT_ARTIFACT);
  if (result === undefined) notes.push(`run ${source.runId} left no ${RESULT_ARTIFACT}`);
  else {
    const dir = path.join(directory, "result");
    await mkdir(dir, { recursive: true });
    await reader.download(source, result.id, dir);
    const parsed = StageResult.safeParse(await readJson(path.join(dir, RESULT_FILE)).catch(() => null));
    if (!parsed.success) notes.push(`the ${RESULT_ARTIFACT} of run ${source.runId} is invalid`);
    else {
      previous.result = parsed.data;
      if (parsed.data.handoff !== undefined) previous.handoff = parsed.data.handoff;
    }
  }
  const heartbeat = artifacts.find((a) => a.name.startsWith(HEARTBEAT_ARTIFACT_PREFIX));
  if (heartbeat !== undefined) {
    const dir = path.join(directory, "heartbeat");
    await mkdir(dir, { recursive: true });
    await reader.download(source, heartbeat.id, dir);
    const parsed = Heartbeat.safeParse(await readJson(path.join(dir, HEARTBEAT_FILE)).catch(() => null));
    if (parsed.success) previous.lastHeartbeat = parsed.data;
    else notes.push(`the newest heartbeat of run ${source.runId} is invalid`);
  }
  if (options.withSessionState === true)
    previous.sessionState = await loadSessionState(
      reader,
      source,
      artifacts,
      path.join(directory, "session"),
    );
  return previous;
}

/** The `loom-session` of the run, checked: a manifest naming a session, and its transcript intact. */
async function loadSessionState(
  reader: ArtifactReader,
  source: ArtifactSource,
  artifacts: Listed,
  dir: string,
): Promise<PreviousSessionState> {
  const artifact = artifacts.find((a) => a.name === SESSION_STATE_ARTIFACT);
  if (artifact === undefined)
    return {
      ok: false,
      reason: `run ${source.runId} left no ${SESSION_STATE_ARTIFACT} (expired, or an older loom)`,
    };
  await mkdir(dir, { recursive: true });
  await reader.download(source, artifact.id, dir);
  const manifest = SessionStateManifest.safeParse(
    await readJson(path.join(dir, SESSION_STATE_MANIFEST)).catch(() => null),
  );
  if (!manifest.success)
    return {
      ok: false,
      reason: `the ${SESSION_STATE_ARTIFACT} of run ${source.runId} has no valid manifest`,
    };
  const transcript = await readFile(path.join(dir, SESSION_STATE_TRANSCRIPT), "utf8").catch(() => null);
  if (transcript === null || transcript.length > MAX_SESSION_STATE_BYTES)
    return { ok: false, reason: `the ${SESSION_STATE_ARTIFACT} of run ${source.runId} holds no transcript` };
  const sessionId = manifest.data.session_id;
  const check = checkSessionTranscript(transcript, sessionId);
  if (!check.ok)
    return { ok: false, reason: `the transcript of run ${source.runId} cannot be resumed: ${check.reason}` };
  return { ok: true, sessionId, transcript };
}
