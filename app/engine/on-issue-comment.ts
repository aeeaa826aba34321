import { parseCommands } from "../../src/commands/parse-command.ts";
import { describeParseFailure, renderCommandHelp } from "../../src/commands/render-command-help.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import type { CommandSource, OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { authorizeSender } from "../trust/authorize-sender.ts";
import { applyEvents } from "./apply-events.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { describePlans, findStage, loadPlansOfPull } from "./plans-of-pull.ts";
import type { LoadedPlan } from "./plans-of-pull.ts";
import { IssueCommentDelivery, readRepo, readTime } from "./webhook-fields.ts";

/**
 * `/loom …` comments on a plan's pull request (created only: an edit, even of an old comment,
 * does nothing). The sender's permission is read from the API; a refusal, an unknown command or an
 * unknown stage changes nothing and gets a short reply.
 */
export async function onIssueComment(deps: EngineDeps, payload: unknown): Promise<void> {
  const parsed = IssueCommentDelivery.safeParse(payload);
  if (!parsed.success || parsed.data.action !== "created" || parsed.data.issue.pull_request === undefined)
    return;
  const delivery = parsed.data;
  if (delivery.sender.login === (await deps.getBotLogin())) return;
  const commands = parseCommands(delivery.comment.body ?? "");
  if (commands.length === 0) return;
  const repo = readRepo(delivery);
  const plans = await loadPlansOfPull(deps, repo, delivery.issue.number);
  const [first] = plans;
  if (first === undefined) return;

  const source: CommandSource = { kind: "comment", commentId: delivery.comment.id };
  const replyKey = `reply:comment:${delivery.comment.id}`;
  const octokit = await deps.getOctokit(repo.installationId);
  const sender = await authorizeSender(octokit, repo, delivery.sender.login, first.stored.repo.minimumRole);
  if (!sender.authorized) {
    const at = deps.now();
    const refused = { type: "command.refused" as const, at, sender: delivery.sender.login, source };
    await applyEvents(deps, { key: first.key, events: [{ ...refused, reason: sender.reason }] });
    return;
  }
  const problems: string[] = [];
  let helpAsked = false;
  const at = deps.now();
  const base = { type: "command.received" as const, at, sender: delivery.sender.login, source };
  // An unreadable time counts as written before every push and every wait (it pins nothing).
  const writtenAt = readTime(delivery.comment.created_at) ?? 0;
  const pinOf = (sha: string | undefined) => (sha !== undefined ? { sha } : { writtenAt });
  const perPlan = new Map<LoadedPlan, OrchestratorEvent[]>();
  const add = (plan: LoadedPlan, event: OrchestratorEvent) =>
    perPlan.set(plan, [...(perPlan.get(plan) ?? []), event]);

  for (const command of commands) {
    if (!command.ok) {
      problems.push(describeParseFailure(command));
      continue;
    }
    if ("stage" in command) {
      const match = findStage(plans, command.stage);
      // `continue` carries the sender's own instructions from this comment (sender authorized above).
      const words = {
        ...(command.instructions === undefined ? {} : { instructions: command.instructions }),
        ...(command.only === true ? { only: true as const } : {}),
      };
      if (!match.ok) problems.push(match.problem);
      else if (command.command === "amend")
        // Pinned like a merge: a comment written before the stage started waiting is not about it.
        add(match.plan, {
          ...base,
          command: "amend",
          stageId: match.stageId,
          writtenAt,
          ...(command.criterion === undefined ? {} : { criterion: command.criterion }),
          ...(command.amendedCommand === undefined ? {} : { amendedCommand: command.amendedCommand }),
        });
      else if (command.command !== "merge")
        add(match.plan, { ...base, command: command.command, stageId: match.stageId, ...words });
      // Pinned like an approval: the commit named, else what waited when the comment was written.
      else add(match.plan, { ...base, command: "merge", stageId: match.stageId, ...pinOf(command.sha) });
      continue;
    }
    switch (command.command) {
      case "help":
        helpAsked = true;
        break;
      case "status":
        for (const plan of plans) add(plan, { ...base, command: "status" });
        break;
      case "approve": {
        // Pinned to what the approver saw: the SHA they name, else the head that was current when
        // the comment was written (a push processed before this delivery but made after the
        // comment is not approved). The reducer checks either against the head it knows.
        for (const plan of plans) add(plan, { ...base, command: "approve", ...pinOf(command.sha) });
        break;
      }
      case "rerun":
        for (const plan of plans) add(plan, { ...base, command: "rerun" });
        break;
      case "budget":
        if (command.amountUsd !== undefined)
          for (const plan of plans) add(plan, { ...base, command: "budget", amountUsd: command.amountUsd });
        break;
    }
  }
  for (const [plan, events] of perPlan) await applyEvents(deps, { key: plan.key, events });
  if (problems.length > 0 || helpAsked) {
    const body = renderCommandHelp(
      describePlans(plans),
      problems.length > 0 ? problems.join(" ") : undefined,
    );
    const reaction = problems.length > 0 ? "-1" : "eyes";
    await replyTo(deps, first, { type: "reply", key: `${replyKey}:help`, source, reaction, body });
  }
}

/** A reply decided by the app goes through the outbox like any effect (deduplicated by key). */
async function replyTo(deps: EngineDeps, plan: LoadedPlan, effect: Effect): Promise<void> {
  await applyEvents(deps, { key: plan.key, events: [], effects: [effect] });
}
