import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";
import { step } from "../../src/orchestrator/step.ts";
import { makeStageBranch } from "../../src/orchestrator/step-context.ts";
import { makePlan } from "./story.ts";

function openPlan(prNumber: number, planId?: string, sharedPull?: boolean) {
  const plan = makePlan([
    ["a", []],
    ["b", ["a"]],
  ]);
  return step(null, {
    type: "plan.opened",
    at: 1_000_000,
    // The same text (blob SHA) under another file name: an identical second plan.
    plan: planId === undefined ? plan : { ...plan, id: planId, path: `doc/plans/${planId}.md` },
    settings: DEFAULT_SETTINGS,
    pr: {
      number: prNumber,
      headRef: `feature/${prNumber}`,
      headSha: `${prNumber}`.repeat(40).slice(0, 40),
      baseRef: "main",
    },
    trusted: true,
    labels: [],
    ...(sharedPull === undefined ? {} : { sharedPull }),
  });
}

function branchesOf(result: ReturnType<typeof openPlan>): string[] {
  return result.effects.flatMap((e) =>
    e.type === "createBranch" || e.type === "dispatchRun" ? [e.branch] : [],
  );
}

describe("effect keys", () => {
  it("differ between two pull requests that carry the same plan text, so runs are never confused", () => {
    const first = openPlan(7).effects.map((e) => e.key);
    const second = openPlan(8).effects.map((e) => e.key);
    assert.ok(first.length > 0);
    assert.deepEqual(
      first.filter((key) => second.includes(key)),
      [],
      "no key is shared between the two pull requests",
    );
  });

  it("are the same when the same plan is opened again on the same pull request (look before creating)", () => {
    assert.deepEqual(
      openPlan(7).effects.map((e) => e.key),
      openPlan(7).effects.map((e) => e.key),
    );
  });

  it("name the stage and attempt in the dispatch key, which the run name carries", () => {
    const dispatch = openPlan(7).effects.find((e) => e.type === "dispatchRun");
    assert.ok(dispatch);
    assert.match(dispatch.key, /^[0-9a-z]{12}-pr7-PLAN-demo:a:1:dispatch$/);
  });

  it("differ between two identical plans (same text, same stage ids) in one pull request", () => {
    const first = openPlan(7, "PLAN-one", true).effects.map((e) => e.key);
    const second = openPlan(7, "PLAN-two", true).effects.map((e) => e.key);
    assert.ok(first.length > 0);
    assert.deepEqual(
      first.filter((key) => second.includes(key)),
      [],
    );
  });
});

describe("stage branches", () => {
  it("carry the pull request number and the plan id: loom/pr-<n>/<plan-id>/<stage-id>", () => {
    assert.deepEqual([...new Set(branchesOf(openPlan(7, "PLAN-one")))], ["loom/pr-7/PLAN-one/a"]);
  });

  it("are never shared by two pull requests with the same plan file, nor by two plans of one pull request", () => {
    const prSeven = branchesOf(openPlan(7, "PLAN-one"));
    const prEight = branchesOf(openPlan(8, "PLAN-one"));
    const otherPlan = branchesOf(openPlan(7, "PLAN-two", true));
    assert.ok(prSeven.length > 0);
    assert.deepEqual(
      prSeven.filter((b) => prEight.includes(b) || otherPlan.includes(b)),
      [],
    );
  });

  it("of a plan stored by loom 0.2 (no branch prefix) keep their old name until the plan ends", () => {
    const { state } = openPlan(7, "PLAN-one");
    assert.ok(state);
    const { branchPrefix: _dropped, ...old } = state;
    assert.equal(makeStageBranch(old, "a"), "loom/PLAN-one/a");
    assert.equal(makeStageBranch(state, "a"), "loom/pr-7/PLAN-one/a");
  });
});
