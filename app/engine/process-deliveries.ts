import type { InboxDelivery } from "../store/store.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { onCheckRun } from "./on-check-run.ts";
import { onCheckSuite } from "./on-check-suite.ts";
import { onIssueComment } from "./on-issue-comment.ts";
import { onPullRequest } from "./on-pull-request.ts";
import { onWorkflowRun } from "./on-workflow-run.ts";

/** Lease of a claimed delivery: longer than reading a pull request's plans takes. */
const DELIVERY_LEASE_MS = 120_000;
/** A delivery whose processing keeps failing (GitHub down…) is given up after this many tries. */
const MAX_DELIVERY_ATTEMPTS = 5;

/**
 * Claims recorded webhook deliveries, oldest first, and turns each into orchestrator events.
 * A failure leaves the delivery to be claimed again when its lease ends (up to a limit); the
 * periodic reconcile heals whatever is lost. Returns how many were claimed.
 */
export async function processDeliveries(deps: EngineDeps, limit: number): Promise<number> {
  const claimed = await deps.store.claimDeliveries(deps.workerId, limit, DELIVERY_LEASE_MS, deps.now());
  for (const delivery of claimed) await processOne(deps, delivery);
  return claimed.length;
}

async function processOne(deps: EngineDeps, delivery: InboxDelivery): Promise<void> {
  const log = deps.log.child({ delivery: delivery.id, event: delivery.name });
  try {
    await routeDelivery(deps, delivery);
    await deps.store.completeDelivery(delivery.id, deps.now());
    deps.metrics?.deliveriesProcessed.inc({ outcome: "processed" });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (delivery.attempts >= MAX_DELIVERY_ATTEMPTS) {
      log.error({ err: error, attempts: delivery.attempts }, "delivery given up");
      await deps.store.completeDelivery(delivery.id, deps.now(), message);
      deps.metrics?.deliveriesProcessed.inc({ outcome: "given_up" });
      return;
    }
    deps.metrics?.deliveriesProcessed.inc({ outcome: "failed" });
    log.warn(
      { err: error, attempts: delivery.attempts },
      "delivery failed; it is retried when its lease ends",
    );
  }
}

export function routeDelivery(deps: EngineDeps, delivery: InboxDelivery): Promise<void> {
  switch (delivery.name) {
    case "pull_request":
      return onPullRequest(deps, delivery.payload);
    case "issue_comment":
      return onIssueComment(deps, delivery.payload);
    case "check_run":
      return onCheckRun(deps, delivery.payload);
    case "check_suite":
      return onCheckSuite(deps, delivery.payload);
    case "workflow_run":
      return onWorkflowRun(deps, delivery.payload);
    default:
      deps.log.debug({ event: delivery.name }, "event loom does not use");
      return Promise.resolve();
  }
}
