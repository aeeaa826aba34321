import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { learningFilePath, renderLearningFile } from "../../src/knowledge/learning-file.ts";
import type { RecordedLearning } from "../../src/knowledge/learning.ts";
import { runLoom } from "./run-loom.ts";

const FIXTURE = "test/fixtures/plans/PLAN-complex.md";

describe("loom prompt <plan> <stage>", () => {
  it("prints the signal a stage session would get, naming the stage, its branch and its acceptance", () => {
    const { code, stdout, stderr } = runLoom(["prompt", FIXTURE, "api"]);
    assert.equal(code, 0, stderr);
    assert.match(stdout, /\*\*Stage\*\*: .*\(`api`\)/);
    assert.match(stdout, /`loom\/PLAN-complex\/api`/);
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
