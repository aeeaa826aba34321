import assert from "node:assert/strict";
import { test } from "node:test";
import type { CallerVerdict } from "../../src/caller/caller-verdict.ts";
import { getPlanCheckState, renderPlanCheckRun } from "../../src/status/render-plan-check-run.ts";
import { summarizeStatus } from "../../src/orchestrator/summarize-status.ts";
import { KEY, Story, makePlan } from "./story.ts";

/*
 * The caller workflow's verdict in the plan's settings decides, in the reducer, whether a stage
 * branch is created before attempt 1 (a caller of an older stage workflow, or an unknown one) and
 * whether anything is dispatched at all (a caller loom cannot serve).
 */

const chain = makePlan([
  ["a", []],
  ["b", ["a"]],
]);
const CURRENT: CallerVerdict = { kind: "current", release: "0.4.0" };
const OLDER: CallerVerdict = {
  kind: "older",
  release: "0.3.0",
  note: "**Caller:** pins loom 0.3.0; move it.",
};
const UNKNOWN: CallerVerdict = {
  kind: "unknown",
  note: "**Caller:** loom cannot tell.\n\n```yaml\nuses: x\n```",
};
const REFUSED: CallerVerdict = {
  kind: "refused",
  reason: "the caller workflow `.github/workflows/loom.yml` pins loom 0.2.0, which this App cannot serve",
  note: "**loom cannot run this plan's stages:** pins loom 0.2.0. Nothing was dispatched.",
};

for (const [name, caller] of [
  ["a caller of this App's contract", CURRENT],
  ["a plan started before loom read the caller", undefined],
] as const) {
  test(`${name}: attempt 1 is dispatched without a branch first (its publish job creates it)`, () => {
    const story = new Story(chain, caller === undefined ? {} : { settings: { caller } });
    assert.deepEqual(story.dispatched(), ["a"]);
    assert.deepEqual(story.of("createBranch"), []);
    assert.equal(renderPlanCheckRun(story.state).summary.includes("Caller"), false);
  });
}

for (const [name, caller] of [
  ["an older release's caller (0.3)", OLDER],
  ["a caller loom cannot place", UNKNOWN],
] as const) {
  test(`${name}: every stage's branch is created at the merge point before attempt 1, and the plan check run shows the note without failing`, () => {
    const story = new Story(chain, { settings: { caller } });
    assert.deepEqual(
      story.effects.filter((e) => e.type === "createBranch" || e.type === "dispatchRun").map((e) => e.type),
      ["createBranch", "dispatchRun"],
      "the branch before the dispatch",
    );
    assert.deepEqual(story.of("createBranch"), [
      {
        type: "createBranch",
        key: `${KEY}:a:1:branch`,
        stageId: "a",
        branch: "loom/pr-7/PLAN-demo/a",
        from: "feature/demo",
        first: true,
      },
    ]);
    const view = renderPlanCheckRun(story.state);
    assert.ok(view.summary.includes(`> ${caller.note.split("\n")[0]}`), view.summary);
    assert.equal(view.status, "in_progress");
    story.pass("a");
    assert.deepEqual(story.dispatched(), ["b"]);
    assert.deepEqual(
      story.of("createBranch").map((e) => [e.stageId, e.first]),
      [["b", true]],
    );
    // A retry's branch is looked for first (its first attempt's publish may have made it).
    story.run("b", "crashed");
    story.send({ type: "tick" }, 600_000);
    assert.deepEqual(
      story.of("createBranch").map((e) => [e.stageId, e.first]),
      [["b", undefined]],
    );
  });
}

test("a caller loom cannot serve: nothing is dispatched, the plan check run fails with the instruction, and a fixed caller starts the plan", () => {
  const story = new Story(chain, { settings: { caller: REFUSED } });
  assert.deepEqual(story.dispatched(), []);
  assert.deepEqual(story.of("createBranch"), []);
  assert.equal(story.stage("a").status, "queued");
  assert.deepEqual(getPlanCheckState(story.state), { status: "completed", conclusion: "failure" });
  const view = renderPlanCheckRun(story.state);
  assert.equal(view.title, "The caller workflow cannot run stages");
  assert.ok(view.summary.includes(`> ${REFUSED.note}`));
  assert.ok(summarizeStatus(story.state).includes(`Not dispatching: ${REFUSED.reason}.`));
  assert.deepEqual(
    story.of("syncCheckRun").map((e) => e.stageId),
    [null],
    "only the plan's check run: the waiting stages get none",
  );

  story.send({ type: "caller.read", caller: CURRENT });
  assert.deepEqual(story.dispatched(), ["a"]);
  assert.deepEqual(story.of("createBranch"), [], "the new pin speaks this App's contract");
  assert.ok(
    story.of("syncCheckRun").some((e) => e.stageId === null),
    "the plan check run drops the refusal",
  );
  assert.equal(renderPlanCheckRun(story.state).summary.includes("cannot run"), false);
  assert.equal(getPlanCheckState(story.state).status, "in_progress");
});

test("a caller that stops being servable mid-plan: what runs finishes, nothing new starts, the check run fails once nothing runs", () => {
  const story = new Story(chain, { settings: { caller: CURRENT } });
  story.send({ type: "caller.read", caller: REFUSED });
  assert.equal(getPlanCheckState(story.state).status, "in_progress", "a stage still runs");
  story.pass("a");
  assert.deepEqual(story.dispatched(), []);
  assert.deepEqual(getPlanCheckState(story.state), { status: "completed", conclusion: "failure" });
});
