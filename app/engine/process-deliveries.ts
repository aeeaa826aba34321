import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { InboxDelivery } from "../store/store.ts";
import { applyParkedEvents } from "./apply-parked-events.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { computeInboxBackoff, MAX_INBOX_ATTEMPTS } from "./inbox-backoff.ts";
import { isSuperseded } from "./is-superseded.ts";
import { onCheckRun } from "./on-check-run.ts";
import { onResultCheckRun } from "./on-result-check-run.ts";
import { isResultCheckRun } from "./webhook-fields.ts";
import { onCheckSuite } from "./on-check-suite.ts";
import { onIssueComment } from "./on-issue-comment.ts";
import { onPullRequest } from "./on-pull-request.ts";
import { onWorkflowRun } from "./on-workflow-run.ts";
import { PARKED_EVENTS } from "./park-events.ts";
import { replyDeadLetter } from "./reply-dead-letter.ts";

/** Lease of a claimed delivery: longer than reading a pull request's plans takes. */
const DELIVERY_LEASE_MS = 120_000;

/**
 * Claims recorded webhook deliveries (and loom's own parked events), installations in turn and
 * each installation's oldest first, and turns each into orchestrator events; a push superseded by
 * a newer one of the same pull request is completed without work (`isSuperseded`). Nothing is
 * dropped: a failed attempt (GitHub down, the plan changing under it) parks the delivery with its
 * error until its next attempt, with backoff, while later deliveries flow; after
 * `MAX_INBOX_ATTEMPTS` it is given up visibly (an error log, the `given_up` count, and for a
 * command a reply saying it was not carried out). When loom stops (`deps.stopping`), the delivery
 * in flight and those not started stay leased for `releaseLeases` to hand on, without an attempt
 * counted as failed. Returns how many were claimed.
 */
export async function processDeliveries(deps: EngineDeps, limit: number): Promise<number> {
  const claimed = await deps.store.claimDeliveries(deps.workerId, limit, DELIVERY_LEASE_MS, deps.now());
  for (const delivery of claimed) {
    // Stopping: the rest stay leased to this worker, whose leases are released on the way out.
    if (deps.stopping?.aborted) break;
    await processOne(deps, delivery);
    // Let waiting webhooks in: with SQLite (synchronous) a backlog would otherwise be worked off
    // in microtasks alone, and GitHub's deliveries would wait seconds for their answer.
    await yieldToEventLoop();
  }
  return claimed.length;
}

async function processOne(deps: EngineDeps, delivery: InboxDelivery): Promise<void> {
  const log = deps.log.child({ delivery: delivery.id, event: delivery.name });
  try {
    if (await isSuperseded(deps, delivery)) {
      await deps.store.completeDelivery(delivery.id, deps.now());
      deps.metrics?.deliveriesProcessed.inc({ outcome: "superseded" });
      log.debug("superseded by a newer push to the same pull request");
      return;
    }
    await routeDelivery(deps, delivery);
    await deps.store.completeDelivery(delivery.id, deps.now());
    deps.metrics?.deliveriesProcessed.inc({ outcome: "processed" });
  } catch (error) {
    if (deps.stopping?.aborted) {
      log.info({ err: error }, "delivery interrupted by shutdown; it is handed on with this worker's leases");
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (delivery.attempts >= MAX_INBOX_ATTEMPTS) {
      const reason = `gave up after ${delivery.attempts} attempts: ${message}`;
      log.error({ err: error, attempts: delivery.attempts }, "delivery given up (dead-lettered)");
      await deps.store.completeDelivery(delivery.id, deps.now(), reason);
      deps.metrics?.deliveriesProcessed.inc({ outcome: "given_up" });
      await replyDeadLetter(deps, delivery, message).catch((replyError: unknown) =>
        log.error({ err: replyError }, "could not enqueue the reply to a given-up command"),
      );
      return;
    }
    const retryAt = deps.now() + computeInboxBackoff(delivery.attempts);
    await deps.store.failDelivery(delivery.id, message, retryAt);
    deps.metrics?.deliveriesProcessed.inc({ outcome: "failed" });
    log.warn(
      { err: error, attempts: delivery.attempts, retryAt },
      "delivery failed; it waits in the inbox for its next attempt",
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
      return isResultCheckRun(delivery.payload)
        ? onResultCheckRun(deps, delivery.payload)
        : onCheckRun(deps, delivery.payload);
    case "check_suite":
      return onCheckSuite(deps, delivery.payload);
    case "workflow_run":
      return onWorkflowRun(deps, delivery.payload);
    case PARKED_EVENTS:
      return applyParkedEvents(deps, delivery.payload);
    default:
      deps.log.debug({ event: delivery.name }, "event loom does not use");
      return Promise.resolve();
  }
}
