import { parseCommands } from "../../src/commands/parse-command.ts";
import type { Effect } from "../../src/orchestrator/effects.ts";
import type { CommandSource } from "../../src/orchestrator/events.ts";
import { parseCheckRunExternalId } from "../../src/status/check-run-external-id.ts";
import type { InboxDelivery, PlanKey } from "../store/store.ts";
import { applyEvents } from "./apply-events.ts";
import { findCheckRunPlan } from "./on-check-run.ts";
import { findPlansAtHead } from "./on-check-suite.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { PARKED_EVENTS } from "./park-events.ts";
import { readParkedEvents } from "./apply-parked-events.ts";
import { CheckRunDelivery, CheckSuiteDelivery, IssueCommentDelivery, readRepo } from "./webhook-fields.ts";

type Command = { key: PlanKey; source: CommandSource };

/**
 * A person's command that loom gave up on (a `/loom …` comment, a check-run button or re-run, a
 * re-run of the pull request's checks, or parked command events) gets a reply where it was given,
 * saying it was not carried out and why, so nobody waits for something that will not happen. The
 * reply goes through the outbox, so it is posted once GitHub answers again. Other deliveries are
 * only logged and counted.
 */
export async function replyDeadLetter(
  deps: EngineDeps,
  delivery: InboxDelivery,
  reason: string,
): Promise<void> {
  const commands = await findCommands(deps, delivery);
  const body =
    `loom could not carry out this command and gave up after ${delivery.attempts} attempts: ${reason}. ` +
    "Nothing changed; give the command again.";
  for (const [index, command] of commands.entries()) {
    const effect: Effect = {
      type: "reply",
      key: `reply:given-up:${delivery.id}:${index}`,
      source: command.source,
      reaction: "-1",
      body,
    };
    await applyEvents(deps, { key: command.key, events: [], effects: [effect] });
  }
}

async function findCommands(deps: EngineDeps, delivery: InboxDelivery): Promise<Command[]> {
  switch (delivery.name) {
    case "issue_comment": {
      const parsed = IssueCommentDelivery.safeParse(delivery.payload);
      if (!parsed.success || parsed.data.action !== "created") return [];
      if (parseCommands(parsed.data.comment.body ?? "").length === 0) return [];
      const { repository, issue, comment } = parsed.data;
      const key = await findPlanKey(deps, repository.owner.login, repository.name, issue.number);
      return key === null ? [] : [{ key, source: { kind: "comment", commentId: comment.id } }];
    }
    case "check_run": {
      const parsed = CheckRunDelivery.safeParse(delivery.payload);
      if (!parsed.success) return [];
      const { action, check_run: run, repository } = parsed.data;
      const ref = parseCheckRunExternalId(run.external_id);
      if (ref === null || (action !== "requested_action" && action !== "rerequested")) return [];
      const source: CommandSource =
        action === "rerequested"
          ? { kind: "check-run-rerequest", checkRunId: run.id }
          : { kind: "check-run-button", checkRunId: run.id };
      const repo = { owner: repository.owner.login, repo: repository.name };
      // Found as the button's own delivery found it: a fork's check run names no pull request.
      const plan = await findCheckRunPlan(deps, repo, run.pull_requests, ref.planPath, run.head_sha);
      return plan === null ? [] : [{ key: plan.key, source }];
    }
    case "check_suite": {
      const parsed = CheckSuiteDelivery.safeParse(delivery.payload);
      if (!parsed.success || parsed.data.action !== "rerequested") return [];
      const suite = parsed.data.check_suite;
      const plans = await findPlansAtHead(deps, readRepo(parsed.data), suite.pull_requests, suite.head_sha);
      const source: CommandSource = { kind: "check-suite-rerequest", checkSuiteId: suite.id };
      // One reply: the re-run was one press, whatever the number of plans it asked.
      return plans.slice(0, 1).map((plan) => ({ key: plan.key, source }));
    }
    case PARKED_EVENTS: {
      const parked = readParkedEvents(delivery.payload);
      const seen = new Set<string>();
      const commands: Command[] = [];
      for (const event of parked.events) {
        if (event.type !== "command.received") continue;
        const id = JSON.stringify(event.source);
        if (seen.has(id)) continue;
        seen.add(id);
        commands.push({ key: parked.key, source: event.source });
      }
      return commands;
    }
    default:
      return [];
  }
}

/** The stored plan a comment on pull request `pr` belongs to: its first active one, else its first. */
async function findPlanKey(
  deps: EngineDeps,
  owner: string,
  repo: string,
  pr: number,
): Promise<PlanKey | null> {
  const plans = await deps.store.listPlansForPull(owner, repo, pr);
  return (plans.find((plan) => plan.active) ?? plans[0])?.key ?? null;
}
