import type { Context, Probot } from "probot";
import { readDeliveryKeys } from "../engine/read-delivery-keys.ts";
import { isResultCheckRun } from "../engine/webhook-fields.ts";
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
  // A job's `loom result` check run (only those are kept: `isResultCheckRun`). GitHub sends
  // `created`, and `completed` for one created completed; the second finds its session ended.
  "check_run.created",
  "check_run.completed",
  "check_run.requested_action",
  "check_run.rerequested",
  "check_suite.rerequested",
  // Every push; only one to the default branch is kept (`isDefaultBranchPush`): it may change the
  // caller workflow, which loom then reads again.
  "check_suite.requested",
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
    if (context.name === "check_run" && isRunLifecycle(context.payload) && !isResultCheckRun(context.payload))
      return;
    if (context.name === "check_suite" && !isRerequestOrDefaultPush(context.payload)) return;
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

/** `check_run.created` / `completed`: every check run of every app, most of them loom's own. */
function isRunLifecycle(payload: unknown): boolean {
  const action = (payload as { action?: unknown }).action;
  return action === "created" || action === "completed";
}

/** `check_suite.rerequested`, or `requested` for a push to the repository's default branch (other pushes: no row). */
function isRerequestOrDefaultPush(payload: unknown): boolean {
  const {
    action,
    check_suite: suite,
    repository,
  } = payload as {
    action?: unknown;
    check_suite?: { head_branch?: unknown };
    repository?: { default_branch?: unknown };
  };
  return (
    action !== "requested" ||
    (suite?.head_branch !== undefined && suite.head_branch === repository?.default_branch)
  );
}

/** Comments that cannot hold a command are not worth a row. */
function mentionsLoom(payload: unknown): boolean {
  const body = (payload as { comment?: { body?: unknown } }).comment?.body;
  return typeof body === "string" && body.includes("/loom");
}
