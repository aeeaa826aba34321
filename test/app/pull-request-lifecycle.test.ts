import assert from "node:assert/strict";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import { afterEach, test } from "node:test";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import { DIAMOND_PLAN, PLAN_PATH, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";

/**
 * A pull request's life as GitHub tells it (`pull_request` opened, closed, reopened, pushes whose
 * file list shows a plan file deleted) and what a plan file loom cannot use looks like to its author.
 */

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const planRuns = (harness: Harness) =>
  harness.fake.checkRuns.filter((run) => run["name"] === "loom: PLAN-diamond");

const summaryOf = (run: Record<string, unknown> | undefined): string =>
  (run?.["output"] as { summary?: string } | undefined)?.summary ?? "";

/** Nothing was dispatched and no plan was stored. */
async function assertNothingRuns(harness: Harness): Promise<void> {
  assert.deepEqual(harness.fake.dispatches, [], "nothing starts");
  assert.deepEqual(await harness.store.listPlansForPull("acme", "widgets", 1), [], "no plan is stored");
}

async function activePlans(harness: Harness): Promise<[string, boolean][]> {
  const plans = await harness.store.listPlansForPull("acme", "widgets", 1);
  return plans.map((plan) => [plan.key.planPath, plan.active]);
}

test("closing a pull request unmerged cancels its running session; reopening it runs the stage again", async () => {
  h = await startHarness();
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const [first] = h.fake.dispatches;
  assert.ok(first);
  // The head is loom's rename commit: the pull request now shows the plan as IN_PROGRESS-.
  const head = String(h.fake.refs.get("feature/plan"));
  const renamed = "doc/plans/IN_PROGRESS-PLAN-diamond.md";
  h.fake.files.set(`${head}:${renamed}`, DIAMOND_PLAN);
  h.fake.pullFiles.set(1, ["README.md", renamed]);

  await h.receive("pull_request", pullRequestPayload("closed", { number: 1, headSha: head }));
  assert.deepEqual(h.fake.cancelled, [first.runId], "the running session is cancelled");
  assert.deepEqual(await activePlans(h), [[PLAN_PATH, false]]);

  await h.receive("pull_request", pullRequestPayload("reopened", { number: 1, headSha: head }));
  assert.deepEqual(await activePlans(h), [[PLAN_PATH, true]]);
  assert.deepEqual(
    h.fake.dispatches.map((d) => [d.inputs["stage_id"], d.inputs["attempt"]]),
    [
      ["a", "1"],
      ["a", "2"],
    ],
    "the stage the close stopped runs again, as a new attempt",
  );
  await h.finish();
  h = undefined;
});

test("a plan file the pull request deletes (GitHub lists it as removed) is no plan, and a running plan whose file goes is closed", async () => {
  h = await startHarness();
  // The pull request deletes an older plan the default branch still has: not a plan to run.
  const old = "doc/plans/PLAN-old.md";
  h.fake.files.set(`main:${old}`, DIAMOND_PLAN.replace("# Plan: Diamond", "# Plan: Old"));
  h.fake.pullFiles.set(1, ["README.md", PLAN_PATH, { filename: old, status: "removed" }]);
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  assert.deepEqual(await activePlans(h), [[PLAN_PATH, true]]);
  assert.deepEqual(
    h.fake.checkRuns.filter((run) => String(run["name"]).includes("PLAN-old")),
    [],
    "the deleted plan gets no check run",
  );

  // A later push deletes the running plan's own file (it was on the default branch too).
  const [first] = h.fake.dispatches;
  assert.ok(first);
  const before = String(h.fake.refs.get("feature/plan"));
  const head = "d".repeat(40);
  h.fake.refs.set("feature/plan", head);
  h.fake.pullFiles.set(1, [
    "README.md",
    { filename: PLAN_PATH, status: "removed" },
    { filename: old, status: "removed" },
  ]);
  await h.receive("pull_request", pullRequestPayload("synchronize", { number: 1, headSha: head, before }));
  assert.deepEqual(await activePlans(h), [[PLAN_PATH, false]], "the plan is closed");
  assert.deepEqual(h.fake.cancelled, [first.runId], "its running session is cancelled");
  await h.finish();
  h = undefined;
});

test("an invalid .github/loom.yml on the default branch fails each plan's check run naming the problem; nothing runs", async () => {
  h = await startHarness();
  h.fake.files.set("main:.github/loom.yml", "max_plans_per_pull: many\n");
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));

  await assertNothingRuns(h);
  const runs = planRuns(h);
  assert.equal(runs.length, 1);
  assert.equal(runs[0]?.["conclusion"], "failure");
  assert.match(summaryOf(runs[0]), /\.github\/loom\.yml \(default branch\): .*max_plans_per_pull/);
  await h.finish();
  h = undefined;
});

test("a plan file larger than 1 MiB (GitHub answers it without content) fails its check run with the reason; nothing runs", async () => {
  h = await startHarness();
  const padding = `\n<!-- ${"x".repeat(1024 * 1024)} -->\n`;
  h.fake.files.set(`${h.headSha}:${PLAN_PATH}`, DIAMOND_PLAN + padding);
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));

  await assertNothingRuns(h);
  const [run] = planRuns(h);
  assert.equal(run?.["conclusion"], "failure");
  assert.match(summaryOf(run), /PLAN-diamond\.md is larger than 1 MiB/);
  await h.finish();
  h = undefined;
});

test("a plan file listed but gone at the head when loom reads it (a push in between) is skipped until that push's webhook", async () => {
  h = await startHarness();
  h.fake.files.delete(`${h.headSha}:${PLAN_PATH}`);
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  assert.deepEqual(h.fake.dispatches, []);
  assert.deepEqual(h.fake.checkRuns, [], "no verdict on a file loom could not read");
  assert.deepEqual(await h.store.listPlansForPull("acme", "widgets", 1), []);
  await h.finish();
  h = undefined;
});

test("a pull_request delivery without the fields loom needs changes nothing and reads nothing", async () => {
  h = await startHarness();
  const payload = pullRequestPayload("opened", { number: 1, headSha: h.headSha });
  delete (payload["pull_request"] as Record<string, unknown>)["head"];
  await h.receive("pull_request", payload);
  assert.deepEqual(h.gh.requests, [], "no GitHub request");
  assert.deepEqual(await h.store.listPlansForPull("acme", "widgets", 1), []);
  await h.finish();
  h = undefined;
});

test("a person's push that edits the running plan (a stage added) is taken: the new stage is in the plan and its check run", async () => {
  h = await startHarness();
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const before = String(h.fake.refs.get("feature/plan"));
  const head = "f".repeat(40);
  h.fake.refs.set("feature/plan", head);
  const renamed = "doc/plans/IN_PROGRESS-PLAN-diamond.md";
  // Stage e after d, the last stage: its lines go before the YAML block's closing fence.
  const edited = DIAMOND_PLAN.replace(
    '      acceptance: ["npm test"]\n```',
    '      acceptance: ["npm test"]\n    - id: e\n      name: Extra\n      dependencies: [a]\n      acceptance: ["npm test"]\n```',
  );
  assert.notEqual(edited, DIAMOND_PLAN);
  h.fake.files.set(`${head}:${renamed}`, edited);
  h.fake.pullFiles.set(1, ["README.md", renamed]);
  await h.receive("pull_request", pullRequestPayload("synchronize", { number: 1, headSha: head, before }));

  const plan = planRuns(h).at(-1);
  assert.match(summaryOf(plan), /\be\b.*waiting/i, "the plan's check run lists the new stage");
  const [record] = await h.store.listPlansForPull("acme", "widgets", 1);
  assert.equal(record && readStoredPlan(record).state.trusted, true, "a person's edit needs no approval");
  await h.finish();
  h = undefined;
});
