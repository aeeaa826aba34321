import { parseCheckRunExternalId } from "../../src/status/check-run-external-id.ts";
import { parseActionIdentifier } from "../../src/status/check-run-actions.ts";
import type { CommandName, CommandSource, OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { authorizeSender } from "../trust/authorize-sender.ts";
import { applyEvents } from "./apply-events.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { isPlanInRepo, loadPlansOfPull } from "./plans-of-pull.ts";
import type { LoadedPlan } from "./plans-of-pull.ts";
import { readStoredPlan } from "./stored-plan.ts";
import { CheckRunDelivery, readRepo } from "./webhook-fields.ts";

/**
 * Buttons on loom's check runs (`requested_action`: Retry, Skip, Cancel, Merge, Approve) and "Re-run"
 * (`rerequested`, which means retry for a stage). The check run's `external_id` names the plan
 * file and the stage; the sender's permission is read like for a comment.
 */
export async function onCheckRun(deps: EngineDeps, payload: unknown): Promise<void> {
  const parsed = CheckRunDelivery.safeParse(payload);
  if (!parsed.success) return;
  const delivery = parsed.data;
  const run = delivery.check_run;
  const ref = parseCheckRunExternalId(run.external_id);
  if (ref === null) return;
  const pressed = readCommand(delivery.action, delivery.requested_action?.identifier, ref.stageId);
  if (pressed === null) return;
  const { command } = pressed;
  const repo = readRepo(delivery);
  const plan = await findCheckRunPlan(deps, repo, run.pull_requests, ref.planPath, run.head_sha);
  if (plan === null) return;

  const source: CommandSource =
    delivery.action === "rerequested"
      ? { kind: "check-run-rerequest", checkRunId: run.id }
      : { kind: "check-run-button", checkRunId: run.id };
  const octokit = await deps.getOctokit(repo.installationId);
  const sender = await authorizeSender(octokit, repo, delivery.sender.login, plan.stored.repo.minimumRole);
  if (!sender.authorized) {
    const at = deps.now();
    const refused = { type: "command.refused" as const, at, sender: delivery.sender.login, source };
    await applyEvents(deps, { key: plan.key, events: [{ ...refused, reason: sender.reason }] });
    return;
  }
  const event: OrchestratorEvent = {
    type: "command.received",
    at: deps.now(),
    command,
    sender: delivery.sender.login,
    source,
    // A button press approves exactly the commit the check run is on, and merges exactly the
    // stage commit its Merge button carries.
    ...(command === "approve" ? { sha: run.head_sha } : {}),
    ...(pressed.sha === undefined ? {} : { sha: pressed.sha }),
    ...(ref.stageId === null ? {} : { stageId: ref.stageId }),
  };
  await applyEvents(deps, { key: plan.key, events: [event] });
}

function readCommand(
  action: string,
  identifier: string | undefined,
  stageId: string | null,
): { command: CommandName; sha?: string } | null {
  if (action === "rerequested") return { command: stageId === null ? "status" : "retry" };
  if (action !== "requested_action") return null;
  const known = parseActionIdentifier(identifier);
  if (known === null) return null;
  if (known.action === "approve") return stageId === null ? { command: "approve" } : null;
  if (known.action === "rerun-affected") return stageId === null ? { command: "rerun" } : null;
  if (stageId === null) return null;
  return known.sha === undefined ? { command: known.action } : { command: known.action, sha: known.sha };
}

/**
 * The plan of a check run: by the pull request GitHub names, else by head SHA among the active
 * plans at its path (a fork's pull request: GitHub lists none on a check run whose head is in
 * another repository).
 */
export async function findCheckRunPlan(
  deps: EngineDeps,
  repo: { owner: string; repo: string },
  pulls: { number: number }[],
  planPath: string,
  headSha: string,
): Promise<LoadedPlan | null> {
  for (const pull of pulls) {
    const plans = await loadPlansOfPull(deps, repo, pull.number);
    const plan = plans.find((candidate) => candidate.key.planPath === planPath);
    if (plan) return plan;
  }
  // Every active plan at this path in the repository: two fork pull requests may both hold one.
  for (const record of await deps.store.listActivePlans()) {
    if (!isPlanInRepo(record.key, repo) || record.key.planPath !== planPath) continue;
    const stored = readStoredPlan(record);
    if (stored.state.pr.headSha === headSha) return { key: record.key, planKey: record.planKey, stored };
  }
  return null;
}
