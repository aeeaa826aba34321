import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { isActiveSession } from "../../src/stage/session-transitions.ts";
import { readRunOutcome, toRunFinishedEvent } from "../github/read-run-outcome.ts";
import { applyEvents } from "./apply-events.ts";
import { buildRepoContext } from "./build-repo-context.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { findRunStage } from "./find-run-stage.ts";
import { WorkflowRunDelivery, readRepo } from "./webhook-fields.ts";

/**
 * A stage session's run started or finished. The run is found by the id loom recorded or, while a
 * dispatch has no id yet, as loom's own dispatch with the session's key (`findRunStage`): a run by
 * anyone else changes nothing. How it ended is read from its conclusion and `loom-result` artifact.
 * The sender is loom's own bot (it dispatched the run): that is expected here, not a loop.
 */
export async function onWorkflowRun(deps: EngineDeps, payload: unknown): Promise<void> {
  const parsed = WorkflowRunDelivery.safeParse(payload);
  if (!parsed.success) return;
  const delivery = parsed.data;
  if (delivery.action !== "in_progress" && delivery.action !== "completed") return;
  const repo = readRepo(delivery);
  const run = delivery.workflow_run;
  const found = await findRunStage(deps, repo, run);
  if (found === null) return;
  const { plan, stageId, attempt } = found;
  const at = deps.now();
  let event: OrchestratorEvent | null;
  if (delivery.action === "in_progress") {
    event = { type: "run.started", at, stageId, attempt, runId: run.id };
  } else {
    const session = plan.stored.state.stages[stageId]?.sessions.find((s) => s.attempt === attempt);
    // Already ended (the reconcile read it first, or loom cancelled it as hung): the reducer
    // would only record a late report, so its artifacts are not downloaded again.
    if (session !== undefined && !isActiveSession(session)) return;
    const octokit = await deps.getOctokit(repo.installationId);
    const context = await buildRepoContext(deps, octokit, repo, plan.stored.repo);
    // The webhook (signed by GitHub) says completed and how; the run's artifacts say the rest.
    event = toRunFinishedEvent(await readRunOutcome(context, run.id, run), { stageId, attempt, at });
    if (event === null) return;
  }
  await applyEvents(deps, { key: plan.key, events: [event] });
}
