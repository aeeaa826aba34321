import { normalizeLabels, parseLabel } from "../../src/commands/parse-label.ts";
import { resolveLabels } from "../../src/commands/resolve-labels.ts";
import { authorizeSender } from "../trust/authorize-sender.ts";
import { applyEvents } from "./apply-events.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { createStoredPlanReader } from "./stored-plan.ts";
import { readRepo } from "./webhook-fields.ts";
import type { PullRequestDelivery } from "./webhook-fields.ts";

/**
 * Labels are level-triggered: every plan of the pull request gets the full current set of loom's
 * labels. A label added or removed by someone who may not steer loom keeps the effect it had
 * before (`resolveLabels`), also when a later change by someone who may sends the full set along.
 */
export async function changeLabels(deps: EngineDeps, delivery: PullRequestDelivery): Promise<void> {
  const repo = readRepo(delivery);
  const known = (
    await deps.store.listPlansForPull(repo.owner, repo.repo, delivery.pull_request.number)
  ).filter((record) => record.active);
  const [firstRecord] = known;
  if (firstRecord === undefined) return;
  const read = createStoredPlanReader();
  const first = read(firstRecord);
  const changed = delivery.label?.name;
  if (changed !== undefined && parseLabel(changed, first.repo.labelPrefix) === null) return;
  const labels = delivery.pull_request.labels.map((label) => label.name);
  const octokit = await deps.getOctokit(repo.installationId);
  const sender = await authorizeSender(octokit, repo, delivery.sender.login, first.repo.minimumRole);
  if (!sender.authorized) {
    deps.log.info({ sender: delivery.sender.login, reason: sender.reason }, "label change ignored");
  }
  for (const record of known) {
    const stored = read(record);
    const normalize = (names: string[]) =>
      normalizeLabels(names, stored.repo.labelPrefix, stored.state.plan.id);
    const resolved = resolveLabels({
      current: normalize(labels),
      obeyed: stored.state.labels,
      ignored: stored.state.ignoredLabels ?? [],
      changed: changed === undefined ? null : (normalize([changed])[0] ?? null),
      authorized: sender.authorized,
    });
    await applyEvents(deps, {
      key: record.key,
      events: [{ type: "labels.changed", at: deps.now(), ...resolved }],
    });
  }
}
