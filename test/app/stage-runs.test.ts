import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import { completeRun, runWebhook, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { passingResult } from "./stage-results.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

async function openDiamond(): Promise<Harness> {
  const harness = await startHarness();
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
  return harness;
}

async function finishRun(harness: Harness, stageId: string, attempt = 1) {
  const dispatch = harness.fake.dispatches.find(
    (d) => d.inputs["stage_id"] === stageId && d.inputs["attempt"] === String(attempt),
  );
  assert.ok(dispatch, `stage ${stageId} attempt ${attempt} was dispatched`);
  const kind =
    dispatch.inputs["kind"] === "merge"
      ? "merge"
      : dispatch.inputs["kind"] === "recovery"
        ? "recovery"
        : "stage";
  await completeRun(harness, dispatch, passingResult(stageId, attempt, kind));
}

test("a passing root stage is merged into the pull request branch, then its dependents are dispatched", async () => {
  h = await openDiamond();
  await finishRun(h, "a");
  assert.deepEqual(h.fake.merges, [{ head: "loom/pr-1/PLAN-diamond/a", base: "feature/plan", status: 201 }]);
  assert.deepEqual(h.fake.dispatches.map((d) => d.inputs["stage_id"]).sort(), ["a", "b", "c"]);
  assert.ok(!h.fake.dispatches.some((d) => d.inputs["stage_id"] === "d"), "d waits for b and c");
  await h.finish();
  h = undefined;
});

test("a repeated completed webhook for a run loom already read does not download its artifacts again", async () => {
  h = await openDiamond();
  await finishRun(h, "a");
  const dispatch = h.fake.dispatches.find((d) => d.inputs["stage_id"] === "a");
  assert.ok(dispatch);
  const artifactReads = () =>
    h!.gh.requests.filter((r) =>
      r.path.startsWith(`/repos/acme/widgets/actions/runs/${dispatch.runId}/artifacts`),
    ).length;
  const before = artifactReads();
  assert.ok(before > 0, "the first completed webhook read the run's artifacts");
  await h.receive("workflow_run", runWebhook(dispatch, "completed"));
  assert.equal(artifactReads(), before);
  assert.equal(h.fake.merges.length, 1, "and nothing is merged twice");
  await h.finish();
  h = undefined;
});

test("a merge conflict puts the stage in merge-conflict and dispatches a merge session", async () => {
  h = await openDiamond();
  h.fake.mergeAnswers.set("loom/pr-1/PLAN-diamond/a", [409]);
  await finishRun(h, "a");
  assert.deepEqual(
    h.fake.merges.map((m) => m.status),
    [409],
  );
  const merge = h.fake.dispatches.filter((d) => d.inputs["kind"] === "merge");
  assert.equal(merge.length, 1);
  assert.equal(merge[0]?.inputs["stage_id"], "a");
  const [plan] = await h.store.listPlansForPull("acme", "widgets", 1);
  assert.ok(plan);
  const stage = readStoredPlan(plan).state.stages["a"];
  assert.equal(stage?.status, "merge-conflict");
  assert.ok(!h.fake.dispatches.some((d) => d.inputs["stage_id"] === "b"), "dependents wait for the merge");
  await h.finish();
  h = undefined;
});

test("after loom's own merge moves the head, the stages it starts and the plan's check run are on it, the merged stage's stays, a waiting stage has none yet, and nothing runs twice", async () => {
  h = await openDiamond();
  // The head the plan started on: loom's IN_PROGRESS- rename of the plan file.
  const startHead = h.fake.refs.get("feature/plan") ?? "";
  await finishRun(h, "a");
  const newHead = h.fake.refs.get("feature/plan");
  assert.ok(newHead && newHead !== startHead);
  h.fake.files.set(
    `${newHead}:doc/plans/PLAN-diamond.md`,
    h.fake.files.get(`${h.headSha}:doc/plans/PLAN-diamond.md`) ?? "",
  );
  const dispatched = h.fake.dispatches.length;
  await h.receive(
    "pull_request",
    pullRequestPayload("synchronize", {
      number: 1,
      headSha: newHead,
      before: startHead,
      sender: { login: "loom-app[bot]", type: "Bot" },
    }),
  );
  assert.equal(h.fake.dispatches.length, dispatched);
  const onNewHead = h.fake.checkRuns
    .filter((r) => r["head_sha"] === newHead)
    .map((r) => r["name"])
    .sort();
  // b and c started on the merge: they and the plan are on the new head, in the checks list.
  assert.deepEqual(onNewHead, ["loom: PLAN-diamond", "loom: b", "loom: c"]);
  const onOldHead = h.fake.checkRuns
    .filter((r) => r["head_sha"] === startHead)
    .map((r) => [r["name"], r["status"], r["conclusion"]])
    .sort((x, y) => String(x[0]).localeCompare(String(y[0])));
  assert.deepEqual(
    onOldHead,
    [
      ["loom: a", "completed", "success"],
      ["loom: PLAN-diamond", "completed", "neutral"],
    ],
    "the merged stage keeps its success; nothing in progress is left behind",
  );
  assert.ok(!h.fake.checkRuns.some((r) => r["name"] === "loom: d"), "d waits for b and c: no check run yet");
  // The plan's check run links every stage's check run page, wherever it is, and lists d.
  const plan = h.fake.checkRuns.find((r) => r["name"] === "loom: PLAN-diamond" && r["head_sha"] === newHead);
  const summary = String((plan?.["output"] as { summary?: string } | undefined)?.summary ?? "");
  for (const id of ["a", "b", "c"]) {
    const run = h.fake.checkRuns.find((r) => r["name"] === `loom: ${id}`);
    assert.match(
      summary,
      new RegExp(`\\[\`${id}\`\\]\\(https://github\\.com/[^)]+/runs/${String(run?.["id"])}\\)`),
    );
  }
  assert.match(summary, /\| `d` \|/, "d is listed, without a link");
  await h.finish();
  h = undefined;
});

test("a valid plan's warnings are warning annotations at their plan lines on the plan check run, sent once to each", async () => {
  h = await openDiamond();
  await finishRun(h, "a");
  const planRuns = h.fake.checkRuns.filter((r) => r["name"] === "loom: PLAN-diamond");
  const planRun = planRuns[0];
  assert.ok(planRun);
  assert.equal(planRuns.length, 2, "the plan check run followed the head to loom's merge");
  const annotationsOf = (r: { body: unknown }) =>
    ((r.body as { output?: { annotations?: Record<string, unknown>[] } }).output?.annotations ?? []).map(
      (a) => [a["path"], a["start_line"], a["annotation_level"], a["title"], a["message"]],
    );
  const creates = h.gh.requests.filter(
    (r) =>
      r.method === "POST" &&
      r.path.endsWith("/check-runs") &&
      (r.body as { name?: string }).name === "loom: PLAN-diamond",
  );
  const ids = new Set(planRuns.map((r) => String(r["id"])));
  const updates = h.gh.requests.filter(
    (r) => r.method === "PATCH" && ids.has(r.path.split("/check-runs/")[1] ?? ""),
  );
  assert.ok(updates.length > 0, "the plan check runs were updated after they were created");
  assert.deepEqual(updates.flatMap(annotationsOf), [], "an update never sends the warnings again");
  const sent = annotationsOf(creates[0] ?? { body: {} });
  // The diamond has no integration-verify stage and four stages without a description.
  assert.deepEqual(
    sent.map((a) => a.slice(0, 4)),
    [
      // At the plan file's name on the head the run is on (loom renamed it IN_PROGRESS-).
      ["doc/plans/IN_PROGRESS-PLAN-diamond.md", 8, "warning", "plan"],
      ["doc/plans/IN_PROGRESS-PLAN-diamond.md", 9, "warning", "stage a"],
      ["doc/plans/IN_PROGRESS-PLAN-diamond.md", 13, "warning", "stage b"],
      ["doc/plans/IN_PROGRESS-PLAN-diamond.md", 17, "warning", "stage c"],
      ["doc/plans/IN_PROGRESS-PLAN-diamond.md", 21, "warning", "stage d"],
    ],
  );
  assert.deepEqual(
    creates.map(annotationsOf),
    creates.map(() => sent),
    "each plan check run (one a head) gets every warning once, with its create",
  );
  assert.match(String(sent[0]?.[4]), /no integration-verify stage/);
  // The current plan check run (on the head) lists the warnings; the superseded one points at it.
  const summary = (planRuns.at(-1)?.["output"] as { summary: string }).summary;
  assert.match(summary, /\*\*Plan warnings \(5\):\*\*/);
  assert.match(summary, /- line 9 \(stage `a`\): stage "a" has no description/);
  await h.finish();
  h = undefined;
});

test("a run's completed webhook is believed: the run is not read again, only its artifacts", async () => {
  h = await openDiamond();
  const dispatch = h.fake.dispatches.find((d) => d.inputs["stage_id"] === "a");
  assert.ok(dispatch);
  const from = h.gh.requests.length;
  await completeRun(h, dispatch, passingResult("a"));
  const paths = h.gh.requests.slice(from).map((r) => `${r.method} ${r.path}`);
  const runPath = `/repos/acme/widgets/actions/runs/${dispatch.runId}`;
  assert.ok(!paths.includes(`GET ${runPath}`), `the run was not read: ${paths.join(", ")}`);
  assert.ok(
    paths.some((p) => p.startsWith(`GET ${runPath}/artifacts`)),
    `its artifacts were listed: ${paths.join(", ")}`,
  );
  const [plan] = await h.store.listPlansForPull("acme", "widgets", 1);
  assert.ok(plan);
  assert.equal(readStoredPlan(plan).state.stages["a"]?.merged, true, "a passed and was merged");
  await h.finish();
});

test("a completed webhook that says the run failed is believed (no artifacts: crashed), though a read of the run would still say in progress", async () => {
  h = await openDiamond();
  const dispatch = h.fake.dispatches.find((d) => d.inputs["stage_id"] === "a");
  assert.ok(dispatch);
  await h.receive("workflow_run", runWebhook(dispatch, "completed", "failure"));
  const [plan] = await h.store.listPlansForPull("acme", "widgets", 1);
  assert.ok(plan);
  const session = readStoredPlan(plan).state.stages["a"]?.sessions[0];
  assert.deepEqual([session?.status, session?.outcome], ["crashed", "crashed"]);
  await h.finish();
});
