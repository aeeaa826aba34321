import { readConditional } from "../github/read-conditional.ts";
import type { PlanRecord } from "../store/store.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { closePlans } from "./close-plans.ts";
import { loadPlans } from "./load-plans.ts";
import { readStoredPlan } from "./stored-plan.ts";
import { PullFields } from "./webhook-fields.ts";
import type { PullRequestDelivery } from "./webhook-fields.ts";

/**
 * Missed pull request webhooks: each pull request with an active plan is read again (a
 * conditional GET, free when nothing changed). Closed → its plans close; a head loom has not seen
 * → its plans are loaded again as on a push. The pusher is unknown here, so the push counts as
 * someone else's (an untrusted plan then needs a new approval: the safe side).
 */
export async function healPulls(deps: EngineDeps, active: PlanRecord[]): Promise<void> {
  const byPull = new Map<string, PlanRecord[]>();
  for (const record of active) {
    const id = `${record.key.owner}/${record.key.repo}#${record.key.pr}`.toLowerCase();
    byPull.set(id, [...(byPull.get(id) ?? []), record]);
  }
  for (const records of byPull.values()) {
    const [first] = records;
    if (first === undefined) continue;
    try {
      await healPull(deps, first, records);
    } catch (error) {
      deps.log.error({ err: error, plan: first.planKey }, "re-reading the pull request failed");
    }
  }
}

async function healPull(deps: EngineDeps, first: PlanRecord, records: PlanRecord[]): Promise<void> {
  const { owner, repo, pr, installationId } = first.key;
  const stored = readStoredPlan(first);
  const octokit = await deps.getOctokit(installationId);
  const { data } = await readConditional(
    { ...(deps.calls ? { calls: deps.calls } : {}), ...(deps.cache ? { cache: deps.cache } : {}) },
    "reconcile",
    `pull:${owner}/${repo}#${pr}`,
    (headers) => octokit.rest.pulls.get({ owner, repo, pull_number: pr, headers }),
  );
  const pull = PullFields.parse(data);
  const delivery: PullRequestDelivery = {
    action: pull.state === "closed" ? "closed" : "synchronize",
    installation: { id: installationId },
    repository: {
      name: repo,
      owner: { login: owner },
      full_name: `${owner}/${repo}`,
      default_branch: stored.repo.defaultBranch,
    },
    sender: { login: "" },
    pull_request: pull,
  };
  if (pull.state === "closed") {
    await closePlans(deps, delivery);
    return;
  }
  const seen = records.every((record) => readStoredPlan(record).state.pr.headSha === pull.head.sha);
  if (!seen) await loadPlans(deps, delivery);
}
