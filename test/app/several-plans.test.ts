import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import { DIAMOND_PLAN, PLAN_PATH, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const TWIN_PATH = "doc/plans/PLAN-twin.md";

test("two identical plans in one pull request get their own dispatch keys, branches and check-run names", async () => {
  h = await startHarness();
  // Without renames: the two plans' IN_PROGRESS- commits race for the head, and the one that
  // loses is tried again after a backoff, holding its check runs back past this test's look.
  h.fake.files.set("main:.github/loom.yml", "rename_plans: false\n");
  // The same text (same blob SHA, same stage ids) under a second file name.
  h.fake.files.set(`${h.headSha}:${TWIN_PATH}`, DIAMOND_PLAN);
  h.fake.pullFiles.set(1, ["README.md", PLAN_PATH, TWIN_PATH]);
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));

  const dispatches = h.fake.dispatches.map((d) => [d.inputs["plan_id"], d.inputs["branch"], d.inputs["key"]]);
  assert.equal(dispatches.length, 2, JSON.stringify(dispatches));
  assert.deepEqual(dispatches.map(([plan, branch]) => [plan, branch]).sort(), [
    ["PLAN-diamond", "loom/pr-1/PLAN-diamond/a"],
    ["PLAN-twin", "loom/pr-1/PLAN-twin/a"],
  ]);
  const [first, second] = dispatches.map(([, , key]) => String(key));
  assert.notEqual(first, second, "the dispatch keys (run titles) differ");
  assert.match(String(first), /-pr1-PLAN-(diamond|twin):a:1:dispatch$/);

  const names = h.fake.checkRuns.map((r) => String(r["name"])).sort();
  // Each plan's own check run and its running root stage's (the others get theirs when they start).
  assert.deepEqual(names, [
    "loom: PLAN-diamond",
    "loom: PLAN-diamond / a",
    "loom: PLAN-twin",
    "loom: PLAN-twin / a",
  ]);
  await h.finish();
  h = undefined;
});

test("two plan files with the same plan id in one pull request are refused, with the reason on the plan check run", async () => {
  h = await startHarness();
  const samePath = "docs/other/PLAN-diamond.md";
  h.fake.files.set(`${h.headSha}:${samePath}`, DIAMOND_PLAN);
  h.fake.pullFiles.set(1, ["README.md", PLAN_PATH, samePath]);
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));

  assert.deepEqual(h.fake.dispatches, [], "nothing starts");
  assert.deepEqual(await h.store.listPlansForPull("acme", "widgets", 1), [], "no plan is stored");
  const refusals = h.fake.checkRuns.filter((r) => r["conclusion"] === "failure");
  assert.equal(refusals.length, 2, "each file gets its failing plan check run");
  for (const run of refusals) {
    const output = run["output"] as { summary: string };
    assert.match(output.summary, /has the same plan id PLAN-diamond/);
    assert.match(output.summary, /rename one of the two files/);
  }
  await h.finish();
  h = undefined;
});

test("plan files over max_plans_per_pull are refused once, on the first of them; the rest run", async () => {
  h = await startHarness();
  h.fake.files.set("main:.github/loom.yml", "max_plans_per_pull: 2\n");
  const extra = ["doc/plans/PLAN-b2.md", "doc/plans/PLAN-c3.md", "doc/plans/PLAN-d4.md"];
  for (const path of extra) h.fake.files.set(`${h.headSha}:${path}`, DIAMOND_PLAN);
  h.fake.pullFiles.set(1, [PLAN_PATH, ...extra]);
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));

  const plans = await h.store.listPlansForPull("acme", "widgets", 1);
  assert.deepEqual(plans.map((p) => p.key.planPath).sort(), [PLAN_PATH, "doc/plans/PLAN-b2.md"].sort());
  assert.equal(h.fake.dispatches.length, 2, "one root stage of each of the two plans");
  const refusals = h.fake.checkRuns.filter((r) => r["conclusion"] === "failure");
  assert.equal(refusals.length, 1, "one check run for all refused files, not one each");
  const summary = (refusals[0]?.["output"] as { summary: string }).summary;
  assert.match(summary, /max_plans_per_pull \(2\)/);
  assert.match(summary, /PLAN-c3\.md, doc\/plans\/PLAN-d4\.md/);
  await h.finish();
  h = undefined;
});

test("a plan with more stages than max_stages_per_plan is refused at the first stage over, and nothing runs", async () => {
  h = await startHarness();
  h.fake.files.set("main:.github/loom.yml", "max_stages_per_plan: 3\n");
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));

  assert.deepEqual(h.fake.dispatches, [], "nothing starts");
  assert.deepEqual(await h.store.listPlansForPull("acme", "widgets", 1), [], "no plan is stored");
  const [refusal] = h.fake.checkRuns.filter((r) => r["conclusion"] === "failure");
  const output = refusal?.["output"] as {
    summary: string;
    annotations?: { start_line: number; message: string }[];
  };
  assert.match(output.summary, /4 stages, more than .github\/loom.yml's max_stages_per_plan \(3\)/);
  const stageD = DIAMOND_PLAN.split("\n").findIndex((line) => /^\s*-\s+id:\s*d\s*$/.test(line)) + 1;
  assert.ok(stageD > 0);
  assert.equal(output.annotations?.[0]?.start_line, stageD, "the annotation points at stage d's id line");
  await h.finish();
  h = undefined;
});

test("a running plan keeps its place under max_plans_per_pull when a plan file that sorts before it is added", async () => {
  h = await startHarness();
  h.fake.files.set("main:.github/loom.yml", "max_plans_per_pull: 1\nrename_plans: false\n");
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const newcomer = "doc/plans/PLAN-alpha.md";
  const head = "e".repeat(40);
  h.fake.refs.set("feature/plan", head);
  h.fake.files.set(`${head}:${PLAN_PATH}`, DIAMOND_PLAN);
  h.fake.files.set(`${head}:${newcomer}`, DIAMOND_PLAN);
  h.fake.pullFiles.set(1, [newcomer, PLAN_PATH]);
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", { number: 1, headSha: head, before: h.headSha }),
  );

  const plans = await h.store.listPlansForPull("acme", "widgets", 1);
  assert.deepEqual(
    plans.map((p) => [p.key.planPath, p.active]),
    [[PLAN_PATH, true]],
    "the running plan goes on; the newcomer is not stored",
  );
  assert.deepEqual(
    h.fake.dispatches.map((d) => d.inputs["plan_id"]),
    ["PLAN-diamond"],
  );
  const refusal = h.fake.checkRuns.find((r) => r["conclusion"] === "failure");
  assert.match(
    String((refusal?.["output"] as { summary: string }).summary),
    /loom does not run doc\/plans\/PLAN-alpha\.md;/,
  );
  await h.finish();
  h = undefined;
});
