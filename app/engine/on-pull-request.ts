import { changeLabels } from "./change-labels.ts";
import { closePlans } from "./close-plans.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { loadPlans } from "./load-plans.ts";
import { PullRequestDelivery } from "./webhook-fields.ts";

/**
 * pull_request deliveries: opened/synchronize/reopened (re)load the plans of the pull request;
 * closed closes them; labeled/unlabeled pass the full current label set on, when the sender may.
 */
export async function onPullRequest(deps: EngineDeps, payload: unknown): Promise<void> {
  const parsed = PullRequestDelivery.safeParse(payload);
  if (!parsed.success) {
    deps.log.warn(
      { issues: parsed.error.issues.length },
      "pull_request payload without the fields loom needs",
    );
    return;
  }
  const delivery = parsed.data;
  switch (delivery.action) {
    case "opened":
    case "reopened":
    case "synchronize":
      return loadPlans(deps, delivery);
    case "closed":
      return closePlans(deps, delivery);
    case "labeled":
    case "unlabeled":
      return changeLabels(deps, delivery);
    default:
      return;
  }
}
