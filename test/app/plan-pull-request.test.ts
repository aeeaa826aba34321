import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import { PLAN_PATH, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

test("a diamond plan pull request gets its root stage's branch, check runs and one dispatch", async () => {
  h = await startHarness();
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  assert.deepEqual(
    h.fake.dispatches.map((d) => [d.inputs["stage_id"], d.inputs["branch"]]),
    [["a", "loom/PLAN-diamond/a"]],
  );
  assert.equal(h.fake.refs.get("loom/PLAN-diamond/a"), h.headSha, "stage branch starts at the merge point");
  const names = h.fake.checkRuns.map((r) => r["name"]).sort();
  assert.deepEqual(names, ["loom: PLAN-diamond", "loom: a", "loom: b", "loom: c", "loom: d"]);
  assert.ok(h.fake.checkRuns.every((r) => r["head_sha"] === h?.headSha));
  const plans = await h.store.listPlansForPull("acme", "widgets", 1);
  assert.deepEqual(
    plans.map((p) => p.key.planPath),
    [PLAN_PATH],
  );
  await h.finish();
  h = undefined;
});
