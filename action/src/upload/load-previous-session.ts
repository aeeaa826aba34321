import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Heartbeat } from "../../../src/artifacts/heartbeat.ts";
import { StageResult } from "../../../src/artifacts/stage-result.ts";
import {
  HEARTBEAT_ARTIFACT_PREFIX,
  HEARTBEAT_FILE,
  RESULT_ARTIFACT,
  RESULT_FILE,
  type ArtifactReader,
  type ArtifactSource,
} from "./artifact-port.ts";

export type PreviousSession = { handoff?: string; lastHeartbeat?: Heartbeat; notes: string[] };

async function readJson(file: string): Promise<unknown> {
  return JSON.parse(await readFile(file, "utf8")) as unknown;
}

/**
 * What a recovery session inherits from the previous run: the handoff in its `loom-result` and
 * its newest heartbeat. Missing or invalid pieces are left out and noted (a run killed with its
 * runner leaves no result); never throws for the previous run's content.
 */
export async function loadPreviousSession(
  reader: ArtifactReader,
  source: ArtifactSource,
  directory: string,
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
    else if (parsed.data.handoff !== undefined) previous.handoff = parsed.data.handoff;
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
  return previous;
}
