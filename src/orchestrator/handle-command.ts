import { renderCommandHelp } from "../commands/render-command-help.ts";
import type { OrchestratorEvent } from "./events.ts";
import type { StepContext } from "./step-context.ts";
import { emit, getKeyPrefix } from "./step-context.ts";
import type { ActionResult } from "./stage-actions.ts";
import { blockStage, cancelStage, retryStage, skipStage, unblockStage } from "./stage-actions.ts";
import { summarizeStatus } from "./summarize-status.ts";

type CommandEvent = Extract<OrchestratorEvent, { type: "command.received" }>;

/** One reply per command, keyed by where it came from, so a replayed command replies once. */
function reply(ctx: StepContext, event: CommandEvent, ok: boolean, body: string | null): void {
  const { source } = event;
  const origin =
    source.kind === "comment" ? `comment-${source.commentId}` : `${source.kind}-${source.checkRunId}`;
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
    case "retry":
    case "skip":
    case "block":
    case "unblock":
    case "cancel":
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
      result = retryStage(ctx, stage, who);
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
  }
  reply(
    ctx,
    event,
    result.ok,
    result.ok ? null : `loom could not ${event.command} \`${stage.id}\`: ${result.reason}`,
  );
}

function approve(ctx: StepContext, event: CommandEvent, who: string): void {
  const { state } = ctx;
  if (state.trusted) {
    reply(ctx, event, true, null);
    return;
  }
  if (event.sha !== undefined && event.sha !== state.pr.headSha) {
    reply(
      ctx,
      event,
      false,
      `The head moved to ${state.pr.headSha.slice(0, 7)} since ${event.sha.slice(0, 7)}: review it and approve again.`,
    );
    return;
  }
  state.approvedSha = state.pr.headSha;
  reply(ctx, event, true, `Head ${state.pr.headSha.slice(0, 7)} approved by ${who}: stages may run.`);
}

/** Commands on a closed pull request change nothing; the sender still hears why. */
export function replyClosed(ctx: StepContext, event: CommandEvent): void {
  reply(ctx, event, false, "The pull request is closed: loom runs nothing for it. Reopen it to continue.");
}
