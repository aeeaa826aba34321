import type { Stage } from "../../../src/plan/plan.ts";
import type { CheckContext } from "../checks/check-context.ts";
import { plural, type StageVerdict } from "../checks/decide-stage-outcome.ts";
import { runStageChecks } from "../checks/run-checks.ts";
import type { RunStageInputs } from "../run-stage-inputs.ts";
import { finishStage } from "../stage/finish-stage.ts";
import { applyAmendments } from "./load-amendments.ts";
import { startHeartbeats } from "./start-heartbeats.ts";
import type { RunStageDeps, RunStageResult } from "../stage/run-stage-deps.ts";

/**
 * A `check` run (a person's `/loom amend`): no model runs. The stage's checks run again with the
 * amended criteria from loom's record for this run, on exactly the commit the dispute was about;
 * a stage branch that moved since is not checked (the amendment was for the commit a person saw).
 */
export async function runCheckOnly(
  inputs: RunStageInputs,
  deps: RunStageDeps,
  stage: Stage,
  ctx: CheckContext,
  clock: { started: number; startSha: string },
): Promise<RunStageResult> {
  const { started, startSha } = clock;
  const finish = (verdict: StageVerdict, checks: Awaited<ReturnType<typeof runStageChecks>> = []) =>
    finishStage(inputs, deps, { started, startSha, verdict, checks, session: null, commits: [] });
  if (deps.readAmendRecord === undefined)
    return finish({ outcome: "crashed", reason: "not started: this runner cannot read loom's amend record" });
  const read = await deps.readAmendRecord();
  if (!read.ok)
    return finish({
      outcome: "crashed",
      reason: `not started: the amended criteria could not be read: ${read.reason}`,
    });
  const record = read.record;
  if (record.checked_sha !== startSha)
    return finish({
      outcome: "completed-with-failures",
      reason: `the stage branch is at ${startSha.slice(0, 7)}, not ${record.checked_sha.slice(0, 7)}, the commit the amendment is for: nothing was checked; \`/loom retry ${stage.id}\` runs the stage again`,
    });
  const amended = applyAmendments(stage, record);
  if (!amended.ok) return finish({ outcome: "completed-with-failures", reason: amended.reason });
  for (const a of record.amendments)
    deps.log("amended criterion", { criterion: a.criterion_index + 1, by: a.by, command: a.command });
  // No session sends heartbeats: the run says it is alive while the checks run, so the App does
  // not take a long suite for a hung run.
  const beat = startHeartbeats(inputs, deps, stage.id);
  const checks = await runStageChecks(amended.stage, ctx).finally(beat.stop);
  const failed = checks.filter((c) => !c.passed);
  const amendedBy = `with ${plural(record.amendments.length, "amended criterion")}`.replace(
    "criterions",
    "criteria",
  );
  const first = failed[0];
  return finish(
    first === undefined
      ? {
          outcome: "completed",
          reason: `checks run again ${amendedBy}, no model: all ${plural(checks.length, "check")} pass`,
        }
      : {
          outcome: "completed-with-failures",
          reason: `checks run again ${amendedBy}, no model: ${failed.length} of ${plural(checks.length, "check")} failed, first: ${first.kind} ${first.name}`,
        },
    checks,
  );
}
