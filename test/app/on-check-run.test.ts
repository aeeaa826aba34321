import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { onCheckRun } from "../../app/engine/on-check-run.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import { formatPlanKey } from "../../app/store/store.ts";
import type { PlanKey, Store } from "../../app/store/store.ts";
import { getKeyPrefix } from "../../src/orchestrator/step-context.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { formatCheckRunExternalId } from "../../src/status/check-run-external-id.ts";
import { makePlanState } from "../status/make-plan-state.ts";
import { mockGitHub, type GitHubMock } from "../support/github-mock.ts";
import { checkRunPayload } from "../support/webhook-payloads.ts";
import { makeEngineDeps, storePlans } from "./engine-fixture.ts";
import { openTempStore } from "./loom-harness.ts";

/*
 * The buttons on loom's check runs (Retry, Skip, Cancel on a stage's; Approve on the plan's) and
 * GitHub's "Re-run" (retry for a stage, the status for the plan), as a user relies on them: the
 * check run's external id names the plan file and stage, the pull request (or, for a fork, the
 * head) the plan; a writer's press becomes that command with a reply on that check run, a
 * reader's is refused with a reply saying why; anything else changes nothing and reads nothing.
 */

const NOW = Date.UTC(2026, 10, 27, 19, 30, 0);
const REPO = "/repos/acme/widgets";
const HEAD = "a".repeat(40);
const OLD = "9".repeat(40);
const DEMO = "doc/plans/PLAN-demo.md";
const OTHER = "doc/plans/PLAN-other.md";
const key = (pr: number, planPath = DEMO, repo = "widgets"): PlanKey => ({
  installationId: 4242,
  owner: "acme",
  repo,
  pr,
  planPath,
});

let gh: GitHubMock | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  gh?.cleanup();
  gh = undefined;
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

/** Pull request `pr`'s plan at `headSha`: `a` failed its checks, `b` waits for it. Held: nothing is dispatched. */
const planAt = (pr: number, headSha = HEAD, overrides: Partial<PlanState> = {}): PlanState =>
  makePlanState(
    [
      { id: "a", status: "completed-with-failures" },
      { id: "b", dependencies: ["a"] },
    ],
    { pr: { number: pr, headRef: "feature/demo", headSha, baseRef: "main" }, hold: true, ...overrides },
  );

async function setUp(plans: { key: PlanKey; state: PlanState }[]) {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  // Listed oldest first: in the order given.
  await storePlans(store, plans, NOW - 60_000, 1);
  gh = mockGitHub();
  const { deps, installations } = makeEngineDeps(store, NOW);
  return { store, deps, gh, installations };
}

function permission(g: GitHubMock, login: string, role: string) {
  g.api.get(`${REPO}/collaborators/${login}/permission`).reply(200, { permission: role, role_name: role });
}

async function planOf(store: Store, planKey: PlanKey) {
  const record = await store.getPlan(planKey);
  assert.ok(record);
  return { version: record.version, state: readStoredPlan(record).state };
}

type Reply = { type: "reply"; key: string; source: unknown; reaction: string; body: string | null };

/** The reply the reducer enqueued on `planKey` under `what` (after the plan's key prefix). */
async function replyOf(store: Store, planKey: PlanKey, what: string): Promise<Reply | undefined> {
  const { state } = await planOf(store, planKey);
  const record = await store.getEffect(`${formatPlanKey(planKey)}|${getKeyPrefix(state)}:${what}`);
  return record?.effect as Reply | undefined;
}

const alice = { login: "alice" };

/** A press of `identifier` (or a re-run) on check run 55 of `planPath`'s `stageId` (null: the plan's own). */
function press(
  action: "requested_action" | "rerequested",
  stageId: string | null,
  options: {
    identifier?: string;
    planPath?: string;
    headSha?: string;
    sender?: { login: string };
    pr?: number;
  } = {},
) {
  return checkRunPayload(action, {
    id: 55,
    name: stageId === null ? "loom: plan" : `loom: ${stageId}`,
    externalId: formatCheckRunExternalId(options.planPath ?? DEMO, stageId),
    headSha: options.headSha ?? HEAD,
    pullNumber: options.pr ?? 7,
    sender: options.sender ?? alice,
    ...(options.identifier === undefined ? {} : { identifier: options.identifier }),
  });
}

test("a writer's Skip on a stage's check run skips that stage of the plan the check run names, with a 👍 there", async () => {
  const { store, deps, gh, installations } = await setUp([
    { key: key(7), state: planAt(7) },
    { key: key(7, OTHER), state: planAt(7) },
  ]);
  permission(gh, "alice", "write");
  await onCheckRun(deps, press("requested_action", "b", { identifier: "skip", planPath: OTHER }));
  assert.equal((await planOf(store, key(7, OTHER))).state.stages["b"]?.status, "skipped");
  assert.equal((await planOf(store, key(7))).version, 1, "the other plan of the pull request is not touched");
  const reply = await replyOf(store, key(7, OTHER), "@reply:check-run-button-55:skip:b");
  assert.deepEqual([reply?.source, reply?.reaction], [{ kind: "check-run-button", checkRunId: 55 }, "+1"]);
  assert.deepEqual(installations, [4242]);
  gh.done();
});

test("Re-run on a stage's check run retries that stage; on the plan's check run it answers with the status", async () => {
  const { store, deps, gh } = await setUp([{ key: key(7), state: planAt(7) }]);
  permission(gh, "alice", "write");
  await onCheckRun(deps, press("rerequested", "a"));
  assert.equal((await planOf(store, key(7))).state.stages["a"]?.status, "queued");
  const retried = await replyOf(store, key(7), "@reply:check-run-rerequest-55:retry:a");
  assert.deepEqual(
    [retried?.source, retried?.reaction],
    [{ kind: "check-run-rerequest", checkRunId: 55 }, "+1"],
  );

  permission(gh, "alice", "write");
  await onCheckRun(deps, press("rerequested", null));
  const status = await replyOf(store, key(7), "@reply:check-run-rerequest-55:status:");
  assert.equal(status?.reaction, "+1");
  assert.match(status?.body ?? "", /PLAN-demo/);
  gh.done();
});

test("Approve on the plan's check run approves exactly the commit that check run is on", async () => {
  const { store, deps, gh } = await setUp([{ key: key(7), state: planAt(7, HEAD, { trusted: false }) }]);
  permission(gh, "alice", "write");
  await onCheckRun(deps, press("requested_action", null, { identifier: "approve", headSha: OLD }));
  assert.equal(
    (await planOf(store, key(7))).state.approvedSha,
    null,
    "an older head's button approves nothing",
  );
  const refused = await replyOf(store, key(7), "@reply:check-run-button-55:approve:");
  assert.deepEqual(
    [refused?.reaction, refused?.body],
    ["-1", "The head moved to aaaaaaa since 9999999: review it and approve again."],
  );
  permission(gh, "alice", "write");
  await onCheckRun(deps, {
    ...press("requested_action", null, { identifier: "approve" }),
    check_run: { ...(press("requested_action", null).check_run as object), id: 56 },
  });
  assert.equal((await planOf(store, key(7))).state.approvedSha, HEAD);
  gh.done();
});

test("Re-run affected on the plan's check run re-runs the stages a push affected; on a stage's check run it is no command", async () => {
  const affected = makePlanState(
    [
      { id: "a", status: "completed", merged: true },
      { id: "b", dependencies: ["a"] },
    ],
    {
      pr: { number: 7, headRef: "feature/demo", headSha: HEAD, baseRef: "main" },
      hold: true,
      affected: {
        cause: "the push of aaaaaaa",
        at: NOW - 1000,
        stages: [{ id: "a", why: "the push changed `x`" }],
      },
    },
  );
  const { store, deps, gh } = await setUp([{ key: key(7), state: affected }]);
  await onCheckRun(deps, press("requested_action", "a", { identifier: "rerun-affected" }));
  assert.equal((await planOf(store, key(7))).version, 1, "a stage's check run has no such button");
  permission(gh, "alice", "write");
  await onCheckRun(deps, press("requested_action", null, { identifier: "rerun-affected" }));
  const { state } = await planOf(store, key(7));
  assert.equal(state.stages["a"]?.status, "queued");
  assert.equal(state.affected, null);
  assert.equal((await replyOf(store, key(7), "@reply:check-run-button-55:rerun:"))?.reaction, "+1");
  gh.done();
});

test("a reader's press is refused with a reply on that check run saying why, and changes nothing else", async () => {
  const { store, deps, gh } = await setUp([{ key: key(7), state: planAt(7) }]);
  permission(gh, "bob", "read");
  await onCheckRun(deps, press("requested_action", "a", { identifier: "retry", sender: { login: "bob" } }));
  const { state } = await planOf(store, key(7));
  assert.equal(state.stages["a"]?.status, "completed-with-failures");
  assert.deepEqual(await replyOf(store, key(7), `@refused:check-run-button-55-${NOW}:bob`), {
    type: "reply",
    key: `${getKeyPrefix(state)}:@refused:check-run-button-55-${NOW}:bob`,
    source: { kind: "check-run-button", checkRunId: 55 },
    reaction: "-1",
    body: "loom did nothing: @bob has read access; loom needs write or above.",
  });
  gh.done();
});

test("buttons that do not fit the check run, another App's check run, or any other action change nothing and read nothing", async () => {
  const { store, deps, gh } = await setUp([{ key: key(7), state: planAt(7) }]);
  for (const payload of [
    press("requested_action", "a", { identifier: "approve" }),
    press("requested_action", null, { identifier: "retry" }),
    press("requested_action", null, { identifier: "skip" }),
    press("requested_action", "a", { identifier: "explode" }),
    { ...press("requested_action", "a"), requested_action: undefined },
    { ...press("rerequested", "a"), action: "completed" },
    {
      ...press("rerequested", "a"),
      check_run: { ...(press("rerequested", "a").check_run as object), external_id: "ci:lint" },
    },
    press("rerequested", "a", { planPath: "doc/plans/PLAN-gone.md" }),
    { action: "rerequested" },
  ])
    await onCheckRun(deps, payload);
  assert.equal((await planOf(store, key(7))).version, 1);
  assert.deepEqual(gh.requests, []);
  gh.done();
});

test("a fork's check run, which names no pull request, finds its plan by path and head among this repository's plans", async () => {
  const { store, deps, gh } = await setUp([
    { key: key(9), state: planAt(9, OLD) },
    { key: key(10), state: planAt(10, HEAD) },
    { key: key(11, DEMO, "gadgets"), state: planAt(11, HEAD) },
  ]);
  permission(gh, "alice", "write");
  const forked = press("rerequested", "a");
  await onCheckRun(deps, { ...forked, check_run: { ...(forked.check_run as object), pull_requests: [] } });
  assert.equal((await planOf(store, key(10))).state.stages["a"]?.status, "queued");
  assert.equal((await planOf(store, key(9))).version, 1, "another head");
  assert.equal((await planOf(store, key(11, DEMO, "gadgets"))).version, 1, "another repository");
  gh.done();
});
