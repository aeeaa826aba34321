import type { OrchestratorEvent } from "./events.ts";
import type { StepContext } from "./step-context.ts";
import { describeSource } from "./handle-command.ts";
import { emit, getKeyPrefix } from "./step-context.ts";

type RefusalEvent = Extract<OrchestratorEvent, { type: "command.refused" }>;

/** How long loom stays silent (a reaction only) after writing a refusal to one person. */
export const REFUSAL_REPLY_INTERVAL_MS = 60 * 60 * 1000;

/**
 * A command from someone without the permission it needs: a 👎 on their comment every time, the
 * reason in a comment at most once per person and pull request an hour (refused comments are free
 * to write and must not buy loom's comments). Button presses have no comment to react to, so a
 * silenced one leaves no trace on GitHub. The record keeps only the last hour's entries.
 */
export function handleRefusal(ctx: StepContext, event: RefusalEvent): void {
  const { state } = ctx;
  const recent = Object.fromEntries(
    Object.entries(state.refusalRepliedAt ?? {}).filter(
      ([, at]) => event.at - at < REFUSAL_REPLY_INTERVAL_MS,
    ),
  );
  const silent = recent[event.sender] !== undefined;
  if (!silent) recent[event.sender] = event.at;
  state.refusalRepliedAt = recent;
  const { source } = event;
  if (silent && source.kind !== "comment") return;
  // A button press or re-run has no id of its own: its time tells presses apart.
  const origin = source.kind === "comment" ? describeSource(source) : `${describeSource(source)}-${event.at}`;
  emit(ctx, {
    type: "reply",
    key: `${getKeyPrefix(state)}:@refused:${origin}:${event.sender}`,
    source,
    reaction: "-1",
    body: silent ? null : `loom did nothing: ${event.reason}.`,
  });
}
