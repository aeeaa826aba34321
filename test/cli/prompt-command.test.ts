import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { learningFilePath, learningId, renderLearningFile } from "../../src/knowledge/learning-file.ts";
import { LEARNING_USES_DIR, renderLearningUse } from "../../src/knowledge/learning-use.ts";
import type { RecordedLearning } from "../../src/knowledge/learning.ts";
import { buildPlanSpec } from "../../app/engine/build-plan-spec.ts";
import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";
import { step } from "../../src/orchestrator/step.ts";
import { makeStageBranch } from "../../src/orchestrator/step-context.ts";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import { runLoom } from "./run-loom.ts";

const FIXTURE = "test/fixtures/plans/PLAN-complex.md";

describe("loom prompt <plan> <stage>", () => {
  it("prints the signal a stage session would get, naming the stage, its branch and its acceptance", () => {
    const { code, stdout, stderr } = runLoom(["prompt", FIXTURE, "api"]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /\*\*Stage\*\*: .*\(`api`\)/);
    assert.match(stdout, /- \*\*Branch\*\*: `loom\/pr-<n>\/PLAN-complex\/api`/, "the form, without --pr");
    assert.match(stdout, /## Acceptance Criteria/);
    const order = ["## Session Rules", "## Target", "## Assignment", "## Immediate Tasks"].map((h) =>
      stdout.indexOf(h),
    );
    assert.ok(
      order.every((i) => i >= 0),
      "every section is present",
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
      "sections keep the reference order",
    );
  });

  it("includes the checkout's knowledge and learnings, as the action reads them, with --repo", (t) => {
    const repo = mkdtempSync(join(tmpdir(), "loom-prompt-"));
    t.after(() => rmSync(repo, { recursive: true, force: true }));
    mkdirSync(join(repo, "doc/loom/knowledge"), { recursive: true });
    writeFileSync(
      join(repo, "doc/loom/knowledge/architecture.md"),
      "# Architecture\n\nThe API talks to Redis.\n",
    );
    const learning: RecordedLearning = {
      category: "pattern",
      summary: "Run the API tests with the in-memory cache",
      detail: "The API tests need REDIS_URL unset so the in-memory cache is used; with it set they hang.",
      tags: ["api", "tests"],
      scope: "src/api",
      criteria_met: ["specific", "verified"],
      plan_id: "PLAN-complex",
      stage_id: "models",
      attempt: 1,
      recorded_at: "2026-11-20T10:00:00.000Z",
    };
    const file = join(repo, learningFilePath(learning));
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, renderLearningFile(learning));
    const { code, stdout, stderr } = runLoom(["prompt", FIXTURE, "api", "--repo", repo]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /The API talks to Redis\./);
    assert.match(stdout, /Run the API tests with the in-memory cache/);
    assert.match(stdout, /\$RUNNER_TEMP\/loom-api-1\/learnings\/learnings\.jsonl/);
    const bare = runLoom(["prompt", FIXTURE, "api", "--repo", join(repo, "nowhere")]);
    assert.equal(bare.code, 0, bare.stderr);
    assert.doesNotMatch(bare.stdout, /in-memory cache/);
  });

  it("ranks learnings as the action does, with the outcomes the checkout's use records hold", (t) => {
    const repo = mkdtempSync(join(tmpdir(), "loom-prompt-uses-"));
    t.after(() => rmSync(repo, { recursive: true, force: true }));
    const base = {
      category: "pattern",
      detail: "The API tests need REDIS_URL unset so the in-memory cache is used; with it set they hang.",
      tags: ["tests"],
      scope: "project",
      criteria_met: ["specific"],
      plan_id: "PLAN-other",
      stage_id: "models",
      attempt: 1,
      recorded_at: "2026-11-20T10:00:00.000Z",
    } as const;
    // Equally relevant: without records the order is by summary ("A…" first).
    const failed: RecordedLearning = {
      ...base,
      tags: [...base.tags],
      criteria_met: [...base.criteria_met],
      summary: "A cache flag the API tests need",
    };
    const passed: RecordedLearning = { ...failed, summary: "Run the API tests with the in-memory cache" };
    for (const learning of [failed, passed]) {
      const file = join(repo, learningFilePath(learning));
      mkdirSync(join(file, ".."), { recursive: true });
      writeFileSync(file, renderLearningFile(learning));
    }
    const uses = join(repo, LEARNING_USES_DIR);
    mkdirSync(uses, { recursive: true });
    for (const [index, [learning, outcome]] of (
      [
        [failed, "completed-with-failures"],
        [passed, "completed"],
      ] as const
    ).entries())
      writeFileSync(
        join(uses, `2026112${index}000000-old.json`),
        renderLearningUse({
          version: 1,
          plan_run: "pr-2/PLAN-other",
          plan_id: "PLAN-other",
          stage_id: "models",
          attempt: index + 1,
          kind: "stage",
          outcome,
          recorded_at: `2026-11-2${index + 1}T00:00:00.000Z`,
          given: [learningId(learning)],
        }),
      );
    const order = (stdout: string) => [stdout.indexOf(passed.summary), stdout.indexOf(failed.summary)];
    const before = runLoom(["prompt", FIXTURE, "api", "--repo", repo]);
    const [p0, f0] = order(before.stdout);
    assert.ok(f0! >= 0 && p0! > f0!, "outside git, no records are read: the order is by summary");
    execFileSync("git", ["init", "-q"], { cwd: repo });
    execFileSync("git", ["add", "."], { cwd: repo });
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "seed"], {
      cwd: repo,
    });
    const after = runLoom(["prompt", FIXTURE, "api", "--repo", repo]);
    assert.equal(after.code, 0, after.stderr);
    const [p1, f1] = order(after.stdout);
    assert.ok(f1! >= 0 && p1! < f1!, "the learning whose stage passed comes first");
  });

  it("names the stage branch the App dispatches the session on, with --pr", () => {
    const { code, stdout, stderr } = runLoom(["prompt", FIXTURE, "api", "--pr", "12"]);
    assert.equal(code, 0, stderr);
    const printed = /- \*\*Branch\*\*: `([^`]+)`/.exec(stdout)?.[1];
    // The orchestrator's own state for that plan on pull request 12.
    const parsed = parsePlan(FIXTURE, readFileSync(FIXTURE, "utf8"));
    assert.ok(parsed.ok);
    const { state } = step(null, {
      type: "plan.opened",
      at: 1_000_000,
      plan: buildPlanSpec(parsed.plan, "0".repeat(40)),
      settings: DEFAULT_SETTINGS,
      pr: { number: 12, headRef: "feature", headSha: "1".repeat(40), baseRef: "main" },
      trusted: true,
      labels: [],
    });
    assert.equal(printed, makeStageBranch(state, "api"));
    assert.equal(printed, "loom/pr-12/PLAN-complex/api");
  });

  it("refuses a --pr that is not a pull request number, exit 2", () => {
    const { code, stderr } = runLoom(["prompt", FIXTURE, "api", "--pr", "x"]);
    assert.equal(code, 2);
    assert.match(stderr, /--pr must be a pull request number/);
  });

  it("prints a merge session's task when asked for --kind merge", () => {
    const { code, stdout, stderr } = runLoom(["prompt", FIXTURE, "api", "--kind", "merge", "--attempt", "2"]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /merge, attempt 2/);
  });

  it("names the valid stages when the stage does not exist, with exit 2", () => {
    const { code, stdout, stderr } = runLoom(["prompt", FIXTURE, "nope"]);
    assert.equal(code, 2);
    assert.equal(stdout, "");
    assert.match(stderr, /no stage "nope".*its stages are: .*api/);
  });

  it("refuses a missing stage argument and a bad --kind with usage, exit 2", () => {
    assert.equal(runLoom(["prompt", FIXTURE]).code, 2);
    const bad = runLoom(["prompt", FIXTURE, "api", "--kind", "party"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--kind must be one of stage, recovery, merge/);
  });
});
