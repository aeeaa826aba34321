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
  assert.deepEqual(names, [
    "loom: PLAN-diamond",
    "loom: PLAN-diamond / a",
    "loom: PLAN-diamond / b",
    "loom: PLAN-diamond / c",
    "loom: PLAN-diamond / d",
    "loom: PLAN-twin",
    "loom: PLAN-twin / a",
    "loom: PLAN-twin / b",
    "loom: PLAN-twin / c",
    "loom: PLAN-twin / d",
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
