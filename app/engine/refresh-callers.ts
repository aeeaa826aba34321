import type { CallerVerdict } from "../../src/caller/caller-verdict.ts";
import { applyEvents } from "./apply-events.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { isPlanInRepo } from "./plans-of-pull.ts";
import { readCallerVerdict } from "./read-caller-verdict.ts";
import { readStoredPlan } from "./stored-plan.ts";
import { readRepo } from "./webhook-fields.ts";
import type { CheckSuiteDelivery } from "./webhook-fields.ts";

/**
 * A push to the default branch may have changed the caller workflow, which lives there: GitHub sends
 * every App with Checks: write a `check_suite.requested` for each push, so no `push` subscription is
 * needed. For the repository's active plans the caller is read again (one conditional request per
 * workflow file named: a 304, free, when it did not change) and each plan whose verdict differs gets
 * `caller.read`: a fixed caller starts a plan that was refused, a new pin stops or starts creating
 * branches first. A push elsewhere, or a repository without an active plan, reads nothing.
 */
export async function refreshCallers(deps: EngineDeps, delivery: CheckSuiteDelivery): Promise<void> {
  const repo = readRepo(delivery);
  if (delivery.check_suite.head_branch !== repo.defaultBranch) return;
  const records = (await deps.store.listActivePlans()).filter((record) => isPlanInRepo(record.key, repo));
  if (records.length === 0) return;
  const octokit = await deps.getOctokit(repo.installationId);
  const verdicts = new Map<string, Promise<CallerVerdict>>();
  for (const record of records) {
    const { state, repo: settings } = readStoredPlan(record);
    const file = settings.workflowFile;
    const read = verdicts.get(file) ?? readCallerVerdict(deps, octokit, repo, file);
    verdicts.set(file, read);
    const caller = await read;
    if (JSON.stringify(caller) === JSON.stringify(state.settings.caller ?? null)) continue;
    deps.log.info({ plan: record.planKey, caller: caller.kind }, "the caller workflow changed");
    await applyEvents(deps, { key: record.key, events: [{ type: "caller.read", at: deps.now(), caller }] });
  }
}
