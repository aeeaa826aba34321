import { z } from "zod";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { readStatus } from "../github/effect-context.ts";
import { applyEvents } from "./apply-events.ts";
import { buildRepoContext, withState } from "./build-repo-context.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { readHeartbeat, readOutcome } from "./run-readers.ts";
import { readStoredPlan } from "./stored-plan.ts";

const RunStatus = z.object({ status: z.string().nullable(), conclusion: z.string().nullable() });

/**
 * Level-triggered healing: for every active plan, re-read each live session's run from GitHub
 * (finished → `run.finished`; running → `run.started` and its newest heartbeat) and end with a
 * `tick`, so a missed or reordered webhook changes nothing in the end and stale heartbeats are
 * judged by the reducer. One plan's failure does not stop the others.
 */
export async function reconcilePlans(deps: EngineDeps): Promise<void> {
  for (const record of await deps.store.listActivePlans()) {
    try {
      const stored = readStoredPlan(record.planKey, record.state);
      const octokit = await deps.getOctokit(record.key.installationId);
      const context = withState(await buildRepoContext(deps, octokit, record.key, stored.repo), stored.state);
      const events: OrchestratorEvent[] = [];
      for (const stageId of stored.state.order) {
        const stage = stored.state.stages[stageId];
        for (const session of stage?.sessions ?? []) {
          if (session.runId === null || (session.status !== "spawning" && session.status !== "running"))
            continue;
          const base = { stageId, attempt: session.attempt, runId: session.runId };
          let run: z.infer<typeof RunStatus>;
          try {
            const response = await octokit.rest.actions.getWorkflowRun({
              owner: record.key.owner,
              repo: record.key.repo,
              run_id: session.runId,
            });
            run = RunStatus.parse(response.data);
          } catch (error) {
            if (readStatus(error) !== 404) throw error;
            run = { status: "completed", conclusion: "cancelled" };
          }
          if (run.status === "completed") {
            const outcome = await readOutcome(context, { runId: session.runId, conclusion: run.conclusion });
            events.push({ type: "run.finished", at: deps.now(), ...base, ...outcome });
            continue;
          }
          if (run.status === "in_progress" && session.status === "spawning") {
            events.push({ type: "run.started", at: deps.now(), ...base });
          }
          const heartbeat = await readHeartbeat(context, session.runId);
          if (heartbeat !== null && heartbeat.timestamp > (session.lastHeartbeat?.timestamp ?? 0)) {
            events.push({
              type: "heartbeat.seen",
              at: deps.now(),
              stageId,
              attempt: session.attempt,
              heartbeat,
            });
          }
        }
      }
      events.push({ type: "tick", at: deps.now() });
      await applyEvents(deps, { key: record.key, events });
    } catch (error) {
      deps.log.error({ err: error, plan: record.planKey }, "reconcile of a plan failed");
    }
  }
}
