import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { RecordedLearning } from "../../src/knowledge/learning.ts";
import {
  learningFilePath,
  parseLearningFile,
  renderLearningFile,
} from "../../src/knowledge/learning-file.ts";
import { selectLearnings } from "../../src/knowledge/select-learnings.ts";

const recorded = (change: Partial<RecordedLearning> = {}): RecordedLearning =>
  RecordedLearning.parse({
    category: "pattern",
    summary: "Handlers return Result values instead of throwing",
    detail:
      "Every handler in src/api returns { ok, error } and the router maps errors to HTTP codes; throwing skips the mapping.",
    tags: ["api", "errors"],
    scope: "src/api/**",
    criteria_met: ["specific"],
    plan_id: "PLAN-demo",
    stage_id: "build-api",
    attempt: 1,
    recorded_at: "2026-11-20T10:00:00.000Z",
    ...change,
  });

describe("learning files", () => {
  it("round-trip through markdown, even with comment enders and fences in the text", () => {
    const tricky = recorded({
      detail: "A detail with --> and <!-- and ``` fences\nand a second line that is long enough.",
    });
    const text = renderLearningFile(tricky);
    assert.match(text, /^<!-- loom-learning v1 \{.*\} -->\n# pattern: Handlers return Result/);
    assert.equal(text.split("\n")[0]?.indexOf("-->"), text.split("\n")[0]!.length - 3, "one comment end");
    assert.deepEqual(parseLearningFile(text), [tricky]);
  });

  it("are named by date, stage and content, so two stages never write the same path", () => {
    const a = learningFilePath(recorded());
    assert.match(a, /^doc\/loom\/knowledge\/learnings\/2026-11-20-build-api-[0-9a-f]{8}\.md$/);
    assert.equal(learningFilePath(recorded()), a, "deterministic");
    assert.notEqual(learningFilePath(recorded({ stage_id: "build-ui" })), a);
  });

  it("parses learnings gathered into learnings.md and skips damaged markers and prose", () => {
    const text = `# Learnings\n\nsome prose\n${renderLearningFile(recorded())}\n<!-- loom-learning v1 {broken -->\n${renderLearningFile(recorded({ summary: "Second learning about the router" }))}`;
    assert.deepEqual(
      parseLearningFile(text).map((l) => l.summary),
      ["Handlers return Result values instead of throwing", "Second learning about the router"],
    );
  });
});

describe("selectLearnings", () => {
  const target = {
    planId: "PLAN-next",
    stageId: "build-ui",
    name: "Build the UI",
    description: "Forms call the api",
    files: ["src/ui/**"],
  };

  it("prefers scope overlapping the stage's files, then matching tags, then recency, and caps the count", () => {
    const onFiles = recorded({
      summary: "UI forms debounce their submit buttons",
      scope: "src/ui/forms/*.tsx",
      tags: ["forms"],
      recorded_at: "2026-01-01T00:00:00.000Z",
    });
    const byTag = recorded({
      summary: "The api client lives in one module",
      tags: ["api"],
      scope: "src/api/**",
    });
    const newer = recorded({
      summary: "Database migrations run in order",
      tags: ["db"],
      scope: "project",
      recorded_at: "2026-11-21T00:00:00.000Z",
    });
    const older = recorded({
      summary: "Logging goes through one logger",
      tags: ["logging"],
      scope: "project",
      recorded_at: "2026-10-01T00:00:00.000Z",
    });
    const chosen = selectLearnings([older, newer, byTag, onFiles], target, 3);
    assert.deepEqual(
      chosen.map((l) => l.summary),
      [onFiles.summary, byTag.summary, newer.summary],
    );
    assert.deepEqual(selectLearnings([older, newer, byTag, onFiles], target, 3), chosen, "deterministic");
  });
});
