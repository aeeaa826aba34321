import { renderCommandHelp } from "../commands/render-command-help.ts";
import type { CommandSource, OrchestratorEvent } from "./events.ts";
import type { StepContext } from "./step-context.ts";
import { emit, getKeyPrefix } from "./step-context.ts";
import type { ActionResult } from "./action-result.ts";
import {
  blockStage,
  cancelStage,
  isRerunnable,
  retryStage,
  skipStage,
  unblockStage,
} from "./stage-actions.ts";
import { summarizeStatus } from "./summarize-status.ts";
import { mergeByPerson } from "./merge-by-person.ts";
import { continueStage } from "./continue-stage.ts";
import { amendCriterion, rejectDispute } from "./adjudicate.ts";
import { startAffectedStages } from "./rerun-affected.ts";
import { getPlanBudget, getPlanSpend } from "./forecast-spend.ts";

type CommandEvent = Extract<OrchestratorEvent, { type: "command.received" }>;

/** Where a command came from, as part of its reply's key: the comment, check run or check suite. */
export function describeSource(source: CommandSource): string {
  if (source.kind === "comment") return `comment-${source.commentId}`;
  if (source.kind === "check-suite-rerequest") return `${source.kind}-${source.checkSuiteId}`;
  return `${source.kind}-${source.checkRunId}`;
}

/** One reply per command, keyed by where it came from, so a replayed command replies once. */
function reply(ctx: StepContext, event: CommandEvent, ok: boolean, body: string | null): void {
  const { source } = event;
  const origin = describeSource(source);
  emit(ctx, {
    type: "reply",
    key: `${getKeyPrefix(ctx.state)}:@reply:${origin}:${event.command}:${event.stageId ?? ""}`,
    source,
    reaction: ok ? "+1" : "-1",
    body,
  });
}

function renderHelp(ctx: StepContext, problem?: string): string {
  const { state } = ctx;
  return renderCommandHelp(
    [{ planId: state.plan.id, stageIds: state.order.filter((id) => !state.stages[id]?.removed) }],
    problem,
  );
}

/**
 * A `/loom …` command, check-run button or re-run request (the app has checked the sender's
 * permission). Every command gets a reply: 👍 when done, 👎 with the reason and what to do when not.
 */
export function handleCommand(ctx: StepContext, event: CommandEvent): void {
  const { state } = ctx;
  const who = `@${event.sender}`;
  switch (event.command) {
    case "help":
      reply(ctx, event, true, renderHelp(ctx));
      return;
    case "status":
      reply(ctx, event, true, summarizeStatus(state));
      emit(ctx, { type: "syncStatusComment", key: `${getKeyPrefix(state)}:@plan:status-comment` });
      return;
    case "approve":
      approve(ctx, event, who);
      return;
    case "budget":
      raiseBudget(ctx, event, who);
      return;
    case "rerun": {
      const result = startAffectedStages(ctx, who);
      reply(ctx, event, result.ok, result.ok ? null : `loom could not re-run: ${result.reason}`);
      return;
    }
    case "retry":
      if (event.stageId === undefined && event.source.kind === "check-suite-rerequest") {
        rerunFailedStages(ctx, event, who);
        return;
      }
      break;
    case "skip":
    case "block":
    case "unblock":
    case "cancel":
    case "merge":
    case "continue":
    case "amend":
    case "reject":
      break;
  }
  const stage = event.stageId === undefined ? undefined : state.stages[event.stageId];
  if (!stage || stage.removed) {
    const problem =
      event.stageId === undefined
        ? `\`${event.command}\` needs a stage id.`
        : `there is no stage \`${event.stageId}\` in ${state.plan.id}.`;
    reply(ctx, event, false, renderHelp(ctx, problem));
    return;
  }
  let result: ActionResult;
  switch (event.command) {
    case "retry":
      result = retryStage(ctx, stage, who, event.only === true);
      break;
    case "skip":
      result = skipStage(ctx, stage, "command", who);
      break;
    case "block":
      result = blockStage(ctx, stage, "command", who);
      break;
    case "unblock":
      result = unblockStage(ctx, stage, "command", who);
      break;
    case "cancel":
      result = cancelStage(ctx, stage, who);
      break;
    case "merge":
      result = mergeByPerson(ctx, stage, who, {
        source: event.source,
        ...(event.sha === undefined ? {} : { sha: event.sha }),
        ...(event.writtenAt === undefined ? {} : { writtenAt: event.writtenAt }),
      });
      break;
    case "continue":
      result = continueStage(ctx, stage, who, event.instructions);
      break;
    case "amend":
      result = amendCriterion(ctx, stage, who, {
        ...(event.criterion === undefined ? {} : { criterion: event.criterion }),
        ...(event.amendedCommand === undefined ? {} : { command: event.amendedCommand }),
        ...(event.writtenAt === undefined ? {} : { writtenAt: event.writtenAt }),
      });
      break;
    case "reject":
      result = rejectDispute(ctx, stage, who);
      break;
  }
  // A person who runs the stage again asks for a session: a pending check-only run of an
  // amendment (one that crashed or was cancelled) gives way to it.
  if (result.ok && (event.command === "retry" || event.command === "continue")) delete stage.amendCheck;
  reply(
    ctx,
    event,
    result.ok,
    result.ok ? null : `loom could not ${event.command} \`${stage.id}\`: ${result.reason}`,
  );
}

/**
 * "Re-run all checks" / "Re-run failed checks" on the pull request: every stage that failed runs
 * again, as `/loom retry <stage>` would run it. Stages a person stopped (`/loom block`, Cancel, a
 * label) stay as they are: their own check run's Re-run or `/loom retry` brings them back.
 */
function rerunFailedStages(ctx: StepContext, event: CommandEvent, who: string): void {
  const { state } = ctx;
  const live = state.order.flatMap((id) => {
    const stage = state.stages[id];
    return stage && !stage.removed ? [stage] : [];
  });
  const rerun = live.filter((stage) => isRerunnable(stage) && retryStage(ctx, stage, who).ok);
  if (rerun.length > 0) {
    reply(ctx, event, true, null);
    return;
  }
  const held = live.filter((stage) => stage.status === "blocked" && stage.blockedBy !== null);
  const hint =
    held.length === 0
      ? ""
      : ` Stopped by a person: ${held.map((s) => `\`${s.id}\``).join(", ")}; \`/loom retry <stage>\` or that stage's own Re-run runs one again.`;
  reply(ctx, event, false, `Nothing of ${state.plan.id} to re-run: no stage has failed.${hint}`);
}

/** `/loom budget +<usd>`: the plan's budget grows by the amount; the scheduler starts what now fits. */
function raiseBudget(ctx: StepContext, event: CommandEvent, who: string): void {
  const { state } = ctx;
  const budget = getPlanBudget(state);
  if (budget === null || event.amountUsd === undefined) {
    reply(
      ctx,
      event,
      false,
      state.settings.planBudgetFrom === "opted out"
        ? `${state.plan.id} has no budget to raise: \`.github/loom.yml\` opts out (\`budget.plan_usd: none\`); a number there gives plans one.`
        : `${state.plan.id} has no budget to raise: set \`budget.plan_usd\` in \`.github/loom.yml\` to give plans one.`,
    );
    return;
  }
  state.budgetRaisedUsd = (state.budgetRaisedUsd ?? 0) + event.amountUsd;
  const raised = budget + event.amountUsd;
  reply(
    ctx,
    event,
    true,
    `${who} raised the budget of ${state.plan.id} by $${event.amountUsd.toFixed(2)} to $${raised.toFixed(2)} ($${getPlanSpend(state).toFixed(2)} spent).`,
  );
}

function approve(ctx: StepContext, event: CommandEvent, who: string): void {
  const { state } = ctx;
  if (state.trusted) {
    reply(ctx, event, true, null);
    return;
  }
  const head = state.pr.headSha;
  const refused = refuseApproval(state.pr, event);
  if (refused !== null) {
    // Already approved (loom's own merge carried the approval over): nothing to refuse.
    if (state.approvedSha === head) reply(ctx, event, true, null);
    else reply(ctx, event, false, refused);
    return;
  }
  state.approvedSha = head;
  delete state.approvalLost;
  reply(ctx, event, true, `Head ${head.slice(0, 7)} approved by ${who}: stages may run.`);
}

/**
 * Why an approval does not pin the current head, or null when it does. A named SHA (the button's
 * check run, `/loom approve <sha>`) must be the head or a prefix of it (7+ hex digits); a comment
 * must have been written after the head was pushed (GitHub's times, to the second: a push in the
 * same second as the comment counts as after it).
 */
function refuseApproval(pr: { headSha: string; headAt?: number }, event: CommandEvent): string | null {
  const head = pr.headSha;
  const short = head.slice(0, 7);
  if (event.sha !== undefined) {
    const named = event.sha.toLowerCase();
    const lower = head.toLowerCase();
    if (named === lower || (/^[0-9a-f]{7,40}$/.test(named) && lower.startsWith(named))) return null;
    return event.source.kind === "comment"
      ? `\`${event.sha.slice(0, 40)}\` is not the head of this pull request (${short}): review ${short} and approve it.`
      : `The head moved to ${short} since ${event.sha.slice(0, 7)}: review it and approve again.`;
  }
  if (event.writtenAt !== undefined && pr.headAt !== undefined && pr.headAt >= event.writtenAt) {
    return `The head moved to ${short} after this comment was written: review it and approve again.`;
  }
  return null;
}

/** Commands on a closed pull request change nothing; the sender still hears why. */
export function replyClosed(ctx: StepContext, event: CommandEvent): void {
  reply(ctx, event, false, "The pull request is closed: loom runs nothing for it. Reopen it to continue.");
}
