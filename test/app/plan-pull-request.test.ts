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

test("a diamond plan pull request gets its check runs and one dispatch of its root stage, which starts from the merge point", async () => {
  h = await startHarness();
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  assert.deepEqual(
    h.fake.dispatches.map((d) => [
      d.inputs["stage_id"],
      d.inputs["attempt"],
      d.inputs["branch"],
      d.inputs["base"],
    ]),
    [["a", "1", "loom/pr-1/PLAN-diamond/a", "feature/plan"]],
  );
  // The plan starts: its file is renamed IN_PROGRESS- (one commit on the head), and the plan's and
  // the running stage's check runs are made on that commit, once; b, c and d, waiting for a, get
  // theirs when they start (the plan's check run lists them). The stage branch is not written by the App: attempt 1 checks out
  // the merge point and its publish job creates the branch.
  const [rename] = h.fake.commits;
  assert.ok(rename);
  assert.deepEqual(rename.parents, [h.headSha]);
  assert.deepEqual(
    rename.entries.map((e) => [e.path, e.sha === null]),
    [
      ["doc/plans/IN_PROGRESS-PLAN-diamond.md", false],
      [PLAN_PATH, true],
    ],
  );
  assert.equal(h.fake.refs.get("feature/plan"), rename.sha);
  assert.equal(
    h.fake.refs.get("loom/pr-1/PLAN-diamond/a"),
    undefined,
    "no stage branch written before the run",
  );
  assert.equal(h.gh.find("POST", "/repos/acme/widgets/git/refs").length, 0);
  const names = h.fake.checkRuns.map((r) => r["name"]).sort();
  assert.deepEqual(names, ["loom: PLAN-diamond", "loom: a"]);
  const plan = h.fake.checkRuns.find((r) => r["name"] === "loom: PLAN-diamond");
  const summary = (plan?.["output"] as { summary?: string } | undefined)?.summary ?? "";
  for (const id of ["b", "c", "d"]) assert.match(summary, new RegExp(`\\b${id}\\b.*waiting`, "i"));
  assert.ok(h.fake.checkRuns.every((r) => r["head_sha"] === rename.sha));
  const plans = await h.store.listPlansForPull("acme", "widgets", 1);
  assert.deepEqual(
    plans.map((p) => p.key.planPath),
    [PLAN_PATH],
  );
  await h.finish();
  h = undefined;
});

test("a plan file renamed IN_PROGRESS- (by loom, or by a person as the reference CLI does) is the same plan: not closed, not opened again", async () => {
  h = await startHarness();
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const renamed = "doc/plans/IN_PROGRESS-PLAN-diamond.md";
  const head = "c".repeat(40);
  h.fake.files.set(`${head}:${renamed}`, String(h.fake.files.get(`${h.headSha}:${PLAN_PATH}`)));
  h.fake.pullFiles.set(1, ["README.md", renamed]);
  h.fake.refs.set("feature/plan", head);
  await h.receive("pull_request", pullRequestPayload("synchronize", { number: 1, headSha: head }));
  const plans = await h.store.listPlansForPull("acme", "widgets", 1);
  assert.deepEqual(
    plans.map((p) => [p.key.planPath, p.active]),
    [[PLAN_PATH, true]],
  );
  assert.equal(h.fake.dispatches.length, 1, "nothing runs again");
  await h.finish();
  h = undefined;
});
