import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { readLatestHeartbeat } from "../github/read-latest-heartbeat.ts";
import { readRunOutcome, toRunFinishedEvent } from "../github/read-run-outcome.ts";
import { applyEvents } from "./apply-events.ts";
import { buildRepoContext } from "./build-repo-context.ts";
import { healPulls } from "./heal-pulls.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { readStoredPlan } from "./stored-plan.ts";
import type { PlanRecord } from "../store/store.ts";

/**
 * Whether a running session's heartbeats are worth reading now: once its silence (since loom last
 * saw a sign of life) reaches half the heartbeat timeout. A live session is then read before it
 * could be judged hung, at most every half timeout (2.5 minutes by default) instead of on every
 * reconcile: the artifact list and the heartbeat's download are the two reads a running stage
 * costs, so this keeps its cost under one read a minute. A session still spawning has no
 * heartbeats; its run's own read above sees it start.
 */
export function isHeartbeatReadDue(
  session: { status: string; lastSeenAt: number },
  settings: { heartbeatTimeoutMs: number },
  now: number,
): boolean {
  return session.status === "running" && now - session.lastSeenAt >= settings.heartbeatTimeoutMs / 2;
}

/**
 * Level-triggered healing: first the pull requests (closed, pushed to), then for every active
 * plan, re-read each live session's run from GitHub
 * (finished → `run.finished`; running → `run.started` and its newest heartbeat) and end with a
 * `tick`, so a missed or reordered webhook changes nothing in the end and stale heartbeats are
 * judged by the reducer. One plan's failure does not stop the others.
 */
export async function reconcilePlans(deps: EngineDeps): Promise<void> {
  await healPulls(deps, await deps.store.listActivePlans());
  for (const record of await deps.store.listActivePlans()) {
    try {
      await reconcilePlan(deps, record);
    } catch (error) {
      deps.log.error({ err: error, plan: record.planKey }, "reconcile of a plan failed");
    }
  }
}

/**
 * One plan's reconcile: each live session's run re-read from GitHub (and its newest heartbeat
 * when due), then a `tick`. Throws when GitHub cannot be read, and then ticks nothing: a session
 * is never judged on what loom could not read.
 */
export async function reconcilePlan(deps: EngineDeps, record: PlanRecord): Promise<void> {
  const stored = readStoredPlan(record);
  const octokit = await deps.getOctokit(record.key.installationId);
  const context = await buildRepoContext(deps, octokit, record.key, stored.repo);
  const events: OrchestratorEvent[] = [];
  for (const stageId of stored.state.order) {
    for (const session of stored.state.stages[stageId]?.sessions ?? []) {
      const { runId, attempt } = session;
      if (runId === null || (session.status !== "spawning" && session.status !== "running")) continue;
      const reading = await readRunOutcome(context, runId);
      const finished = toRunFinishedEvent(reading, { stageId, attempt, at: deps.now() });
      if (finished !== null) {
        events.push(finished);
        continue;
      }
      if (reading.status === "in_progress" && session.status === "spawning") {
        events.push({ type: "run.started", at: deps.now(), stageId, attempt, runId });
      }
      // On GHES a running run lists no artifacts (v3): nothing to read until it completes.
      if (stored.state.settings.liveHeartbeats === false) continue;
      if (!isHeartbeatReadDue(session, stored.state.settings, deps.now())) continue;
      const heartbeat = await readLatestHeartbeat(context, runId);
      if (heartbeat?.ok && heartbeat.heartbeat.timestamp > (session.lastHeartbeat?.timestamp ?? 0)) {
        events.push({
          type: "heartbeat.seen",
          at: deps.now(),
          stageId,
          attempt,
          heartbeat: heartbeat.heartbeat,
        });
      } else if (heartbeat && !heartbeat.ok) {
        deps.log.warn({ plan: record.planKey, stageId, reason: heartbeat.reason }, "unreadable heartbeat");
      }
    }
  }
  events.push({ type: "tick", at: deps.now() });
  await applyEvents(deps, { key: record.key, events });
}
