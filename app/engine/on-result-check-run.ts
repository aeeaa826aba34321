import { parseResultCheckRun } from "../../src/artifacts/result-check-run.ts";
import { makeStageKey } from "../../src/orchestrator/step-context.ts";
import { isActiveSession } from "../../src/stage/session-transitions.ts";
import { decideRunOutcome } from "../github/decide-run-outcome.ts";
import { toRunFinishedEvent } from "../github/read-run-outcome.ts";
import { applyEvents } from "./apply-events.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { findRecordedRunStage } from "./find-run-stage.ts";
import { readRepo, ResultCheckRunDelivery } from "./webhook-fields.ts";

/**
 * A `loom result` check run, created by a stage run's publish job after it pushed the stage's
 * work: the run's outcome without a GitHub request (no artifact list, no download). Believed only
 * as GitHub Actions' own check run (GitHub sets the app; no token can claim it), on the commit the
 * publish job pushed, for the run id loom recorded for a live session of that stage and attempt,
 * with that session's dispatch key. Anything else is ignored: the run's `workflow_run` webhook
 * and the reconcile still read its artifacts.
 */
export async function onResultCheckRun(deps: EngineDeps, payload: unknown): Promise<void> {
  const parsed = ResultCheckRunDelivery.safeParse(payload);
  if (!parsed.success) return;
  const delivery = parsed.data;
  const check = delivery.check_run;
  const carried = parseResultCheckRun(check.output.text);
  const log = deps.log.child({ checkRun: check.id });
  if (carried === null)
    return log.warn("a loom result check run loom cannot read: the run's artifacts decide");
  if (carried.publish.pushed_sha !== check.head_sha)
    return log.warn("a loom result check run not on the commit its run pushed");
  const found = await findRecordedRunStage(deps, readRepo(delivery), carried.run_id);
  if (found === null) return;
  const { plan, stageId, attempt } = found;
  const state = plan.stored.state;
  const session = state.stages[stageId]?.sessions.find((s) => s.attempt === attempt);
  if (session === undefined || !isActiveSession(session)) return;
  const { result, publish } = carried;
  const key = makeStageKey(state, stageId, attempt, "dispatch");
  if (result.plan_id !== state.plan.id || (result.key !== undefined && result.key !== key)) {
    return log.warn({ stageId, attempt }, "a loom result check run for another plan or dispatch: ignored");
  }
  // The publish job created it as its last act: the run is as good as completed; its conclusion
  // matters only without a publish result (`decideRunOutcome`), and this one has one.
  const ended = { status: "completed", conclusion: "success", result, publish, problems: [] };
  const reading = {
    ...ended,
    runId: carried.run_id,
    htmlUrl: "",
    title: "",
    finished: decideRunOutcome(ended),
  };
  const event = toRunFinishedEvent(reading, { stageId, attempt, at: deps.now() });
  if (event === null) return;
  await applyEvents(deps, { key: plan.key, events: [event] });
}
