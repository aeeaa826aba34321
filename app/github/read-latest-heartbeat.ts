import { Heartbeat as HeartbeatArtifact } from "../../src/artifacts/heartbeat.ts";
import type { Heartbeat } from "../../src/orchestrator/events.ts";
import type { ReaderContext } from "./effect-context.ts";
import { listRunArtifacts, parseArtifactJson, readArtifactFile } from "./run-artifacts.ts";
import type { RunArtifact } from "./run-artifacts.ts";

export const HEARTBEAT_PREFIX = "loom-heartbeat-";

/**
 * Whether a running run's heartbeats can be read while it runs, by where the App runs
 * (`serverUrl`, from `GHE_HOST`): on github.com and GHE.com yes (artifact API v4 artifacts are
 * listed as soon as they are uploaded); on GitHub Enterprise Server no: the action uploads with the
 * artifact API v3 there, whose artifacts the REST API lists only once the run has completed.
 */
export function hasLiveHeartbeats(serverUrl: string | undefined): boolean {
  const host = new URL(serverUrl ?? "https://github.com").hostname.toLowerCase();
  return host === "github.com" || host.endsWith(".ghe.com");
}
export const HEARTBEAT_FILE = "heartbeat.json";

export type HeartbeatReading =
  | { ok: true; sequence: number; artifact: HeartbeatArtifact; heartbeat: Heartbeat }
  | { ok: false; reason: string };

/** The heartbeat artifact with the highest `<n>` (newest upload among duplicates). */
export function findLatestHeartbeatArtifact(
  artifacts: readonly RunArtifact[],
): { artifact: RunArtifact; sequence: number } | null {
  let best: { artifact: RunArtifact; sequence: number } | null = null;
  for (const artifact of artifacts) {
    const match = /^loom-heartbeat-(\d{1,6})$/.exec(artifact.name);
    if (!match) continue;
    const sequence = Number(match[1]);
    if (
      !best ||
      sequence > best.sequence ||
      (sequence === best.sequence && artifact.createdAt.localeCompare(best.artifact.createdAt) > 0)
    ) {
      best = { artifact, sequence };
    }
  }
  return best;
}

/** The artifact as the orchestrator takes it (times in ms since epoch). */
export function toEventHeartbeat(artifact: HeartbeatArtifact): Heartbeat {
  return {
    timestamp: Date.parse(artifact.timestamp),
    contextPercent: artifact.context_percent,
    lastTool: artifact.last_tool,
    activity: artifact.activity,
    turns: artifact.turns,
    costUsd: artifact.cost_usd,
  };
}

/**
 * The newest `loom-heartbeat-<n>` of a running run, or null when it has none yet. The artifact
 * list is a conditional request and a heartbeat already downloaded is remembered, so polling a
 * run whose heartbeat has not moved costs one free 304.
 */
export async function readLatestHeartbeat(
  ctx: ReaderContext,
  runId: number,
): Promise<HeartbeatReading | null> {
  const label = "readLatestHeartbeat";
  const latest = findLatestHeartbeatArtifact(await listRunArtifacts(ctx, label, runId));
  if (!latest) return null;
  const parsed = parseArtifactJson(
    await readArtifactFile(ctx, label, latest.artifact, HEARTBEAT_FILE),
    HeartbeatArtifact,
  );
  if (!parsed.ok) return { ok: false, reason: `${latest.artifact.name}: ${parsed.reason}` };
  return {
    ok: true,
    sequence: latest.sequence,
    artifact: parsed.value,
    heartbeat: toEventHeartbeat(parsed.value),
  };
}
