import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { RecordedLearning } from "../../src/knowledge/learning.ts";
import { learningFilePath, learningId, renderLearningFile } from "../../src/knowledge/learning-file.ts";
import { LEARNING_USES_DIR, LearningUse } from "../../src/knowledge/learning-use.ts";
import type { PullRecord } from "./e2e-requests.ts";
import { startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-notes.md";
const PLAN = planText(
  "Notes",
  `
- id: notes
  name: Write the notes
  description: Write notes.txt for the docs site
  files: ["docs/**", "notes.txt"]
  acceptance: ["grep -q hello notes.txt"]
`,
);

/** A learning an earlier plan left on the default branch, about the files this stage touches. */
const earlier = RecordedLearning.parse({
  category: "convention",
  summary: "Docs pages are plain text with one heading line",
  detail:
    "The docs site renders every file under docs/ verbatim; a page starts with one heading line and has no front matter.",
  tags: ["docs"],
  scope: "docs/**",
  criteria_met: ["specific", "verified"],
  plan_id: "PLAN-docs",
  stage_id: "docs",
  attempt: 1,
  recorded_at: "2026-11-01T00:00:00.000Z",
});

describe(
  "learnings given to a stage, through the real app, the real action and Claude Code",
  { timeout: 200_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    before(async () => {
      e2e = await startE2E({
        files: { [learningFilePath(earlier)]: renderLearningFile(earlier) },
        script: scriptStages({ notes: writeFiles({ "notes.txt": "hello\n" }) }),
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      await e2e.waitForPlanEnd(pull, "PLAN-notes", 1, 180_000);
    });
    after(async () => {
      await e2e?.close();
    });

    it("lists the learning on the stage's check run and counts it on the status comment", async () => {
      const run = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: notes");
      assert.equal(run?.conclusion, "success", e2e.describe());
      assert.match(
        run?.output.summary ?? "",
        /### Learnings given \(1\)\n\n- Docs pages are plain text with one heading line \(`[^`]+`, attempt 1\)/,
      );
      assert.match(e2e.statusComment(pull)?.body ?? "", /\*\*Learnings:\*\* 0 added, 1 given/);
    });

    it("records on the pull request's branch that the stage was given it and passed", async () => {
      const git = e2e.emulator.repo().git;
      const entries = (await git.listTree(pull.headRef, LEARNING_USES_DIR)) ?? [];
      assert.equal(entries.length, 1, e2e.describe());
      const text = await e2e.readFile(pull.headRef, entries[0]?.path ?? "");
      const use = LearningUse.parse(JSON.parse(text ?? "null"));
      assert.deepEqual(
        [use.plan_run, use.stage_id, use.outcome, use.given],
        [`pr-${pull.number}/PLAN-notes`, "notes", "completed", [learningId(earlier)]],
      );
    });
  },
);
