import type { CommandSource, OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { authorizeSender } from "../trust/authorize-sender.ts";
import { applyEvents } from "./apply-events.ts";
import { refreshCallers } from "./refresh-callers.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { isPlanInRepo, loadPlansOfPull, type LoadedPlan } from "./plans-of-pull.ts";
import { CheckSuiteDelivery, readRepo, type RepoOf } from "./webhook-fields.ts";

/**
 * "Re-run all checks" and "Re-run failed checks" on the pull request: GitHub sends loom's check
 * suite of that head as `check_suite.rerequested` (both buttons alike). Every plan shown on that
 * head re-runs its failed stages, as `/loom retry <stage>` would; the sender's permission is read
 * like for a comment. A suite of an older head shows no plan any more and changes nothing.
 * `requested` (every push) on the default branch re-reads the caller workflow (`refreshCallers`).
 */
export async function onCheckSuite(deps: EngineDeps, payload: unknown): Promise<void> {
  const parsed = CheckSuiteDelivery.safeParse(payload);
  if (parsed.success && parsed.data.action === "requested") return refreshCallers(deps, parsed.data);
  if (!parsed.success || parsed.data.action !== "rerequested") return;
  const delivery = parsed.data;
  const suite = delivery.check_suite;
  const repo = readRepo(delivery);
  const plans = await findPlansAtHead(deps, repo, suite.pull_requests, suite.head_sha);
  const [first] = plans;
  if (first === undefined) return;

  const source: CommandSource = { kind: "check-suite-rerequest", checkSuiteId: suite.id };
  const octokit = await deps.getOctokit(repo.installationId);
  const sender = await authorizeSender(octokit, repo, delivery.sender.login, first.stored.repo.minimumRole);
  if (!sender.authorized) {
    const key = `reply:check-suite:${suite.id}:${delivery.sender.login}`;
    const body = `loom did nothing: ${sender.reason}.`;
    await applyEvents(deps, {
      key: first.key,
      events: [],
      effects: [{ type: "reply", key, source, reaction: "-1", body }],
    });
    return;
  }
  for (const plan of plans) {
    const event: OrchestratorEvent = {
      type: "command.received",
      at: deps.now(),
      command: "retry",
      sender: delivery.sender.login,
      source,
    };
    await applyEvents(deps, { key: plan.key, events: [event] });
  }
}

/** The active plans whose pull request's head is `headSha`: by the pull requests GitHub names, else (forks) by SHA. */
export async function findPlansAtHead(
  deps: EngineDeps,
  repo: RepoOf,
  pulls: { number: number }[],
  headSha: string,
): Promise<LoadedPlan[]> {
  const numbers = new Set(pulls.map((pull) => pull.number));
  if (numbers.size === 0) {
    for (const record of await deps.store.listActivePlans()) {
      if (isPlanInRepo(record.key, repo)) numbers.add(record.key.pr);
    }
  }
  const found: LoadedPlan[] = [];
  for (const number of [...numbers].sort((a, b) => a - b)) {
    const plans = await loadPlansOfPull(deps, repo, number);
    found.push(...plans.filter((plan) => plan.stored.state.pr.headSha === headSha));
  }
  return found;
}
