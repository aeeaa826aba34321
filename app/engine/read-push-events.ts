import type { ProbotOctokit } from "probot";
import type { ForkInfo, OrchestratorEvent, PlanSpec } from "../../src/orchestrator/events.ts";
import { isStalePush } from "../../src/orchestrator/move-head.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { findLostMerges, headContains } from "./find-lost-merges.ts";
import { readChangedPaths } from "./read-changed-paths.ts";
import type { PullRequestDelivery, RepoOf } from "./webhook-fields.ts";

export type PushSeen = {
  /** The plan file as it is at the new head. */
  spec: PlanSpec;
  delivery: PullRequestDelivery;
  at: number;
  /** The head is one loom produced (its merge or rename). */
  loomHead: boolean;
  /** The delivery's sender is loom's bot. */
  sentByLoom: boolean;
  /** GitHub's time of the head (the push). */
  headAt: number | undefined;
  fork: ForkInfo | null;
};

/**
 * What a pull request delivery means for a plan loom already runs (`state`): the plan file changed
 * (`plan.changed`), the head moved (`head.moved`, with the paths a person's push changed, for the
 * affected set), and the merged stages the new head no longer contains (`merge.lost`). A late
 * webhook of a push the head is already past yields nothing.
 */
export async function readPushEvents(
  deps: EngineDeps,
  octokit: ProbotOctokit,
  repo: RepoOf,
  state: PlanState,
  seen: PushSeen,
): Promise<OrchestratorEvent[]> {
  const { spec, delivery, at, loomHead, sentByLoom, headAt, fork } = seen;
  const pull = delivery.pull_request;
  const events: OrchestratorEvent[] = [];
  // A change that came in with a commit loom made (a stage's merge: publish refuses sessions'
  // plan edits, so only a bypass gets one in) is nobody's: the plan waits for a person.
  if (state.plan.blobSha !== spec.blobSha)
    events.push({ type: "plan.changed", at, plan: spec, ...(loomHead ? { untrusted: true } : {}) });
  // Whether the push is loom's own is the reducer's call (the merge SHAs it recorded), never
  // the sender's: anyone's push can come with loom's bot as sender.
  // The push behind a head loom read back without it (approval dropped): its `before` may
  // show it was loom's own merge on the approved head. Without one (a late `opened`) there is
  // nothing to confirm, and no event: each event commits the plan again.
  const before = delivery.action === "synchronize" ? (delivery.before ?? null) : null;
  const confirms = before !== null && state.approvalLost?.to === pull.head.sha;
  // A push whose webhook came after the head moved past it (loom's merges and renames move the
  // head from their answers; GitHub promises no order): its head is in the current one. Moving
  // back to it would undo merges. One compare, only for a push not made on the head loom knows.
  const stale =
    isStalePush(state, pull.head.sha, before) ||
    (before !== null &&
      before !== state.pr.headSha &&
      pull.head.sha !== state.pr.headSha &&
      (await headContains(deps, octokit, repo, state.pr.headSha, pull.head.sha)));
  if (stale) deps.log.info({ head: pull.head.sha }, "a late push webhook: the head is already past it");
  // A person's push: what it changed decides which completed stages it affects. A push sent
  // as loom's bot is loom's (another replica's merge whose answer is not recorded yet, two
  // merges at once), and a head the reconcile found (`healPulls`: no sender) may be loom's own
  // merge too: neither offers anything to re-run. Only the list: trust never rests on it.
  const moved = !stale && state.pr.headSha !== pull.head.sha;
  const byPerson = !sentByLoom && delivery.sender.login !== "";
  const push = moved && byPerson ? await readChangedPaths(deps, octokit, repo, state, pull.head.sha) : {};
  if (!stale && (moved || confirms))
    events.push({
      type: "head.moved",
      at,
      headSha: pull.head.sha,
      before,
      ...(headAt === undefined ? {} : { pushedAt: headAt }),
      ...(fork === null ? {} : { fork }),
      ...(push.changedPaths === undefined ? {} : { changedPaths: push.changedPaths }),
    });
  // A stage counts as merged only while the head contains its commit (a force-push may drop it).
  if (moved) events.push(...(await findLostMerges(deps, octokit, repo, state, pull.head.sha, push.compared)));
  return events;
}
