import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";
import { step } from "../../src/orchestrator/step.ts";
import { makePlan } from "./story.ts";

function openPlan(prNumber: number) {
  return step(null, {
    type: "plan.opened",
    at: 1_000_000,
    plan: makePlan([
      ["a", []],
      ["b", ["a"]],
    ]),
    settings: DEFAULT_SETTINGS,
    pr: {
      number: prNumber,
      headRef: `feature/${prNumber}`,
      headSha: `${prNumber}`.repeat(40).slice(0, 40),
      baseRef: "main",
    },
    trusted: true,
    labels: [],
  });
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
    assert.match(dispatch.key, /^[0-9a-z]{12}-pr7:a:1:dispatch$/);
  });
});
