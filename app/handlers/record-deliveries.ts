import type { Context, Probot } from "probot";
import { readDeliveryKeys } from "../engine/read-delivery-keys.ts";
import type { Store } from "../store/store.ts";

/** The webhook events and actions loom acts on; everything else is not even recorded. */
export const RECORDED_EVENTS = [
  "pull_request.opened",
  "pull_request.synchronize",
  "pull_request.reopened",
  "pull_request.closed",
  "pull_request.labeled",
  "pull_request.unlabeled",
  "issue_comment.created",
  "check_run.requested_action",
  "check_run.rerequested",
  "check_suite.rerequested",
  "workflow_run.in_progress",
  "workflow_run.completed",
] as const;

export type RecordDeps = {
  store: Store;
  now: () => number;
  /** Called after a new delivery was recorded: start processing soon, without waiting. */
  wake: () => void;
};

/**
 * The webhook handler only records the fact: the delivery goes into the durable inbox keyed by
 * its `X-GitHub-Delivery` id (a redelivery with the same id is ignored), with its installation
 * (whose turn it waits for) and coalescing key (`readDeliveryKeys`), and the answer goes back at
 * once. All work (API reads, the reducer, effects) happens after, in the engine.
 */
export function recordDeliveries(app: Probot, deps: RecordDeps): void {
  app.on([...RECORDED_EVENTS], async (context: Context) => {
    if (context.name === "issue_comment" && !mentionsLoom(context.payload)) return;
    const fresh = await deps.store.recordDelivery({
      id: context.id,
      name: context.name,
      payload: context.payload,
      receivedAt: deps.now(),
      ...readDeliveryKeys(context.name, context.payload),
    });
    if (fresh) deps.wake();
    else context.log.info({ delivery: context.id }, "duplicate delivery ignored");
  });
}

/** Comments that cannot hold a command are not worth a row. */
function mentionsLoom(payload: unknown): boolean {
  const body = (payload as { comment?: { body?: unknown } }).comment?.body;
  return typeof body === "string" && body.includes("/loom");
}
