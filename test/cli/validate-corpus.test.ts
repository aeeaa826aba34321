import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { ValidationReport } from "../../src/plan/validation-report.ts";
import { runLoom } from "./run-loom.ts";

const corpusDir = new URL("../fixtures/corpus/plans/", import.meta.url);
const missing = existsSync(corpusDir)
  ? false
  : `the plan corpus is not at ${fileURLToPath(corpusDir)} (a copy of the shared corpus kept in the repository)`;

/** `[id, dependencies, level]` per stage, as test/fixtures/corpus/README.md (a copy of ../shared/corpus) expects them. */
type Expected = { file: string; stages: [string, string[], number][] };

const valid: Expected[] = [
  {
    file: "simple.md",
    stages: [
      ["stage-1", [], 0],
      ["stage-2", ["stage-1"], 1],
    ],
  },
  {
    file: "parallel.md",
    stages: [
      ["foundation", [], 0],
      ["frontend", ["foundation"], 1],
      ["backend", ["foundation"], 1],
      ["integration", ["frontend", "backend"], 2],
    ],
  },
  {
    file: "complex.md",
    stages: [
      ["init", [], 0],
      ["models", ["init"], 1],
      ["database", ["init"], 1],
      ["api", ["models", "database"], 2],
      ["tests", ["api"], 3],
    ],
  },
  { file: "acceptance.md", stages: [["stage-with-criteria", [], 0]] },
  {
    file: "IN_PROGRESS-PLAN-tmux-terminal-backend.md",
    stages: [
      ["tmux-backend-core", [], 0],
      ["attach-overview", ["tmux-backend-core"], 1],
      ["integration-verify", ["attach-overview"], 2],
      ["knowledge-distill", ["integration-verify"], 3],
    ],
  },
  {
    file: "PLAN-worktree-isolation-enforcement.md",
    stages: [
      ["knowledge-bootstrap", [], 0],
      ["sandbox-hardening", ["knowledge-bootstrap"], 1],
      ["signal-clarity", ["knowledge-bootstrap"], 1],
      ["hook-enforcement", ["knowledge-bootstrap"], 1],
      ["integration-verify", ["sandbox-hardening", "signal-clarity", "hook-enforcement"], 2],
    ],
  },
  {
    file: "PLAN-container-backend-hardening.md",
    stages: [
      ["knowledge-bootstrap", [], 0],
      ["fix-orphan-cleanup", ["knowledge-bootstrap"], 1],
      ["fix-container-hooks", ["fix-orphan-cleanup"], 2],
      ["fix-git-identity", ["fix-container-hooks"], 3],
      ["integration-verify", ["fix-git-identity"], 4],
      ["knowledge-distill", ["integration-verify"], 5],
    ],
  },
];

function validateJson(file: string): { code: number | null; report: ValidationReport } {
  const { code, stdout, stderr } = runLoom(["validate", "--json", fileURLToPath(new URL(file, corpusDir))]);
  assert.equal(stderr, "", "nothing on stderr");
  assert.equal(stdout.trim().split("\n").length, 1, "exactly one line of JSON");
  return { code, report: JSON.parse(stdout) as ValidationReport };
}

describe(
  "loom validate --json on the reference corpus gives the corpus README's results",
  { skip: missing },
  () => {
    for (const { file, stages } of valid) {
      it(`${file}: valid, ${stages.length} stages with the same ids, dependencies and levels`, () => {
        const { code, report } = validateJson(file);
        assert.equal(code, 0);
        assert.equal(report.ok, true, JSON.stringify(report.errors));
        assert.deepEqual(report.errors, []);
        assert.deepEqual(
          report.stages.map((s) => [s.id, s.dependencies, s.level]),
          stages,
        );
        assert.equal(report.plan.id, file.replace(/\.md$/, ""));
      });
    }

    it("invalid_cycle.md: invalid, the error names the cycle", () => {
      const { code, report } = validateJson("invalid_cycle.md");
      assert.equal(code, 1);
      assert.equal(report.ok, false);
      const rotations = [
        "stage-a → stage-c → stage-b → stage-a",
        "stage-c → stage-b → stage-a → stage-c",
        "stage-b → stage-a → stage-c → stage-b",
      ];
      const cycle = report.errors.find((e) => rotations.some((rotation) => e.message.includes(rotation)));
      assert.ok(cycle, JSON.stringify(report.errors));
      assert.deepEqual([cycle.line, cycle.column], [15, 22], "at stage-a's dependency on stage-c");
      assert.deepEqual(
        report.stages.map((s) => [s.id, s.dependencies, s.level]),
        [
          ["stage-a", ["stage-c"], null],
          ["stage-b", ["stage-a"], null],
          ["stage-c", ["stage-b"], null],
        ],
      );
    });

    it("PLAN-ghostty-macos-spawn.md: invalid, no loom METADATA block, pointing at the file", () => {
      const { code, report } = validateJson("PLAN-ghostty-macos-spawn.md");
      assert.equal(code, 1);
      assert.deepEqual(report.plan, {
        id: "PLAN-ghostty-macos-spawn",
        name: "Fix Ghostty terminal spawning on macOS",
      });
      assert.equal(report.errors.length, 1);
      assert.match(report.errors[0]?.message ?? "", /^no loom METADATA block/);
      assert.deepEqual([report.errors[0]?.line, report.errors[0]?.column], [1, 1]);
      assert.deepEqual(report.stages, []);
    });
  },
);
