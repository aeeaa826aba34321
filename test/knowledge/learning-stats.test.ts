import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { findRetiredLearnings, DEFAULT_RETIRE_POLICY } from "../../src/knowledge/find-retired-learnings.ts";
import { RecordedLearning } from "../../src/knowledge/learning.ts";
import { learningId } from "../../src/knowledge/learning-file.ts";
import { summarizeLearningUses } from "../../src/knowledge/learning-stats.ts";
import {
  LearningUse,
  learningUsePath,
  parseLearningUses,
  planRunOf,
  renderLearningUse,
} from "../../src/knowledge/learning-use.ts";
import { selectLearnings } from "../../src/knowledge/select-learnings.ts";

const recorded = (change: Partial<RecordedLearning> = {}): RecordedLearning =>
  RecordedLearning.parse({
    category: "pattern",
    summary: "Handlers return Result values instead of throwing",
    detail:
      "Every handler in src/api returns { ok, error } and the router maps errors to HTTP codes; throwing skips the mapping.",
    tags: ["api"],
    scope: "project",
    criteria_met: ["specific"],
    plan_id: "PLAN-old",
    stage_id: "build-api",
    attempt: 1,
    recorded_at: "2026-11-01T10:00:00.000Z",
    ...change,
  });

let clock = 0;
/** A use record; each one a minute after the one before, unless `recorded_at` says otherwise. */
const use = (given: string[], change: Partial<LearningUse> = {}): LearningUse => {
  clock += 1;
  return LearningUse.parse({
    version: 1,
    plan_run: "pr-7/PLAN-next",
    plan_id: "PLAN-next",
    stage_id: "ui",
    attempt: 1,
    kind: "stage",
    outcome: "completed",
    recorded_at: new Date(Date.UTC(2026, 10, 2, 0, clock)).toISOString(),
    given,
    ...change,
  });
};

describe("learning use records", () => {
  it("round-trip as one line of JSON under learnings/uses/, named by time, plan run, stage and attempt", () => {
    const record = use(["2026-11-01-build-api-0a1b2c3d"], {
      plan_run: planRunOf("loom/pr-7/PLAN-next/ui", "PLAN-next"),
    });
    assert.equal(record.plan_run, "pr-7/PLAN-next");
    assert.match(
      learningUsePath(record),
      /^doc\/loom\/knowledge\/learnings\/uses\/\d{14}-pr-7-PLAN-next-ui-1-stage\.json$/,
    );
    assert.deepEqual(parseLearningUses([renderLearningUse(record).trim(), "{broken", "prose"]), [record]);
  });
});

describe("summarizeLearningUses", () => {
  it("counts retrievals, passes and failures (crashes and timeouts count as neither) and the failures in a row", () => {
    const uses = [
      use(["x", "y"]),
      use(["x"], { outcome: "completed-with-failures" }),
      use(["x"], { outcome: "crashed" }),
      use(["x"], { outcome: "completed-with-failures", plan_run: "pr-8/PLAN-last" }),
    ];
    const stats = summarizeLearningUses([...uses].reverse());
    assert.deepEqual(stats.get("x"), {
      retrieved: 4,
      passed: 1,
      failed: 2,
      failedInARow: 2,
      lastPlanRun: "pr-8/PLAN-last",
      lastUsedAt: uses[3]?.recorded_at,
    });
    assert.equal(stats.get("y")?.failedInARow, 0);
  });
});

describe("selectLearnings with use stats", () => {
  it("ranks a learning whose stages passed above an equally relevant one whose stages failed", () => {
    const good = recorded({ summary: "Routes are registered in src/api/index.ts only" });
    const bad = recorded({ summary: "A route may be registered anywhere under src/api" });
    const target = { planId: "PLAN-next", stageId: "ui", files: [] };
    // Without stats they tie (same relevance, same age): the order is by summary.
    assert.deepEqual(
      selectLearnings([good, bad], target, 1).map((l) => l.summary),
      [bad.summary],
    );
    const stats = summarizeLearningUses([
      use([learningId(good)]),
      use([learningId(bad)], { outcome: "completed-with-failures" }),
    ]);
    assert.deepEqual(
      selectLearnings([good, bad], target, 1, stats).map((l) => l.summary),
      [good.summary],
    );
  });
});

describe("findRetiredLearnings", () => {
  const learning = recorded();
  const id = learningId(learning);
  const candidates = [{ id, plan_id: learning.plan_id, recorded_at: learning.recorded_at }];
  const retire = (uses: LearningUse[], policy = DEFAULT_RETIRE_POLICY) =>
    findRetiredLearnings(candidates, uses, summarizeLearningUses(uses), policy);

  it("retires a learning given to retire_after_failures stages in a row that failed, not one a pass interrupted", () => {
    const failed = { outcome: "completed-with-failures" } as const;
    assert.deepEqual(retire([use([id], failed), use([id], failed), use([id], failed)]), [
      { id, reason: "the last 3 stages it was given to failed their checks" },
    ]);
    assert.deepEqual(retire([use([id], failed), use([id], failed), use([id]), use([id], failed)]), []);
    assert.deepEqual(
      retire([use([id], failed), use([id], failed), use([id], failed)], {
        ...DEFAULT_RETIRE_POLICY,
        retire_after_failures: 0,
      }),
      [],
      "0 never retires",
    );
  });

  it("retires a learning no stage was given in retire_after_plans later plan runs", () => {
    const policy = { retire_after_plans: 2, retire_after_failures: 3 };
    const other = (run: string) => use(["other"], { plan_run: run, plan_id: run.split("/")[1] ?? run });
    assert.deepEqual(retire([other("pr-1/PLAN-a"), other("pr-1/PLAN-a")], policy), [], "one plan run");
    assert.deepEqual(retire([other("pr-1/PLAN-a"), other("pr-2/PLAN-b")], policy), [
      { id, reason: "no stage was given it in 2 plan runs" },
    ]);
    // Given in a plan run after the first: only the runs after that count.
    assert.deepEqual(
      retire([other("pr-1/PLAN-a"), use([id], { plan_run: "pr-2/PLAN-b" }), other("pr-3/PLAN-c")], policy),
      [],
    );
    // Runs of the plan it came from do not count against it.
    assert.deepEqual(
      retire([other("pr-1/PLAN-old"), other("pr-2/PLAN-old"), other("pr-3/PLAN-b")], policy),
      [],
    );
    assert.deepEqual(
      retire([other("pr-1/PLAN-a"), other("pr-2/PLAN-b")], { ...policy, retire_after_plans: 0 }),
      [],
    );
  });
});
