import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkStageLimit, describeRefusedPlans, limitPlanFiles } from "../../src/plan/check-plan-limits.ts";
import { isPlanPath } from "../../src/plan/discover-plan-paths.ts";
import { formatDiagnostics, summarizeReport } from "../../src/plan/format-diagnostics.ts";
import {
  escapeData,
  escapeProperty,
  formatGithubAnnotations,
  formatWorkflowCommand,
} from "../../src/plan/format-github-annotations.ts";
import {
  listLifecycleNames,
  stripLifecyclePrefix,
  withLifecyclePrefix,
} from "../../src/plan/lifecycle-path.ts";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import type { PlanResult } from "../../src/plan/plan.ts";
import { buildValidationReport } from "../../src/plan/validation-report.ts";
import type { ValidationReport } from "../../src/plan/validation-report.ts";
import { HEADER, goodStage, planMarkdown, verifyStage } from "./plan-markdown.ts";

const PATH = "doc/plans/PLAN-test.md";
const report = (yaml: readonly string[]): ValidationReport =>
  buildValidationReport(PATH, parsePlan(PATH, planMarkdown(yaml)));

/** Valid: a → b, c → integration-verify, three levels, no warnings. */
const diamond = [
  ...HEADER,
  ...goodStage("a"),
  ...goodStage("b", ["a"]),
  ...goodStage("c", ["a"]),
  ...verifyStage(["b", "c"]),
];

describe("buildValidationReport: what `loom validate --json` prints", () => {
  it("a valid plan: its id and name, each stage's dependencies, level and type, no errors", () => {
    assert.deepEqual(report(diamond), {
      ok: true,
      plan: { id: "PLAN-test", name: "Test plan" },
      stages: [
        { id: "a", dependencies: [], level: 0, stage_type: "standard" },
        { id: "b", dependencies: ["a"], level: 1, stage_type: "standard" },
        { id: "c", dependencies: ["a"], level: 1, stage_type: "standard" },
        { id: "integration-verify", dependencies: ["b", "c"], level: 2, stage_type: "integration-verify" },
      ],
      errors: [],
      warnings: [],
    });
  });

  it("an invalid plan keeps its stages (level null on a cycle), errors without their stage, warnings with it", () => {
    const result = report([
      ...HEADER,
      ...goodStage("a", ["b"]),
      ...goodStage("b", ["a"]),
      "    - id: c",
      "      name: Stage c",
      '      acceptance: ["npm test"]',
    ]);
    assert.equal(result.ok, false);
    assert.deepEqual(result.plan, { id: "PLAN-test", name: "Test plan" });
    assert.deepEqual(result.stages, [
      { id: "a", dependencies: ["b"], level: null, stage_type: "standard" },
      { id: "b", dependencies: ["a"], level: null, stage_type: "standard" },
      { id: "c", dependencies: [], level: 0, stage_type: "standard" },
    ]);
    assert.deepEqual(result.errors, [{ message: "dependency cycle: a → b → a", line: 12, column: 22 }]);
    assert.deepEqual(result.warnings, [
      {
        message:
          "no integration-verify stage: add a last stage (stage_type: integration-verify) that checks the merged work of all stages together",
        line: 8,
        column: 3,
      },
      {
        message: 'stage "c" has no description: the session gets only its name as the assignment',
        line: 19,
        column: 11,
        stage: "c",
      },
    ]);
  });

  it("a plan whose stages could not be read lists none", () => {
    const result = report(["loom:", "  version: 1"]);
    assert.equal(result.ok, false);
    assert.deepEqual(result.stages, []);
    assert.deepEqual(result.errors, [{ message: "`loom:` has no `stages` list", line: 6, column: 1 }]);
  });

  it("a result that names no plan is named after its file", () => {
    const failed: PlanResult = {
      ok: false,
      errors: [{ message: "broken", line: 1, column: 1 }],
      warnings: [],
    };
    const result = buildValidationReport("doc/plans/PLAN-x.md", failed);
    assert.deepEqual(result.plan, { id: "PLAN-x", name: "PLAN-x" });
    assert.deepEqual(result.stages, []);
  });
});

describe("formatDiagnostics: compiler-style lines an editor can jump to, then a summary", () => {
  it("puts errors and warnings in file order, an error before a warning at the same place", () => {
    const text = formatDiagnostics("p.md", {
      ok: false,
      plan: { id: "p", name: "p" },
      stages: [],
      errors: [
        { message: "late error", line: 9, column: 1 },
        { message: "shared error", line: 3, column: 5 },
      ],
      warnings: [
        { message: "shared warning", line: 3, column: 5 },
        { message: "early warning", line: 3, column: 2 },
        { message: "first warning", line: 1, column: 7 },
      ],
    });
    assert.equal(
      text,
      [
        "p.md:1:7: warning: first warning",
        "p.md:3:2: warning: early warning",
        "p.md:3:5: error: shared error",
        "p.md:3:5: warning: shared warning",
        "p.md:9:1: error: late error",
        "p.md: invalid plan: 2 errors, 3 warnings",
        "",
      ].join("\n"),
    );
  });

  it("keeps an error first when the warning was reported first at the same place", () => {
    const text = formatDiagnostics("p.md", {
      ok: false,
      plan: { id: "p", name: "p" },
      stages: [],
      errors: [{ message: "e", line: 2, column: 2 }],
      warnings: [
        { message: "w1", line: 2, column: 2 },
        { message: "w2", line: 2, column: 2 },
      ],
    });
    assert.deepEqual(text.split("\n").slice(0, 3), [
      "p.md:2:2: error: e",
      "p.md:2:2: warning: w1",
      "p.md:2:2: warning: w2",
    ]);
  });

  it("summarises a valid plan with its stages and levels", () => {
    assert.equal(
      formatDiagnostics(PATH, report(diamond)),
      `${PATH}: valid plan "Test plan": 4 stages on 3 levels, 0 warnings\n`,
    );
  });

  it("uses the singular for one stage, one level, one warning and one error", () => {
    const one = report([...HEADER, ...goodStage("a")]);
    const warning = { message: "w", line: 1, column: 1 };
    assert.equal(
      summarizeReport({ ...one, warnings: [warning] }),
      'valid plan "Test plan": 1 stage on 1 level, 1 warning',
    );
    assert.equal(
      summarizeReport({ ...one, ok: false, errors: [{ message: "x", line: 1, column: 1 }], warnings: [] }),
      "invalid plan: 1 error, 0 warnings",
    );
  });
});

describe("formatGithubAnnotations: workflow commands GitHub shows on the plan file", () => {
  it("one ::error or ::warning per diagnostic in file order, titled with the plan id, then the summary", () => {
    const result = report([...HEADER, ...goodStage("a", ["ghost"]), "      truths: [x]"]);
    assert.equal(
      formatGithubAnnotations(PATH, result),
      [
        `::error title=loom%3A PLAN-test,file=${PATH},line=12,col=22::stage "a" depends on unknown stage "ghost"`,
        `::warning title=loom%3A PLAN-test,file=${PATH},line=14,col=7::stage "a": unknown key \`truths\` is kept but not used`,
        `${PATH}: invalid plan: 1 error, 1 warning`,
        "",
      ].join("\n"),
    );
  });

  it("keeps the order of reporting for diagnostics at the same place: errors first", () => {
    const text = formatGithubAnnotations("p.md", {
      ok: false,
      plan: { id: "p", name: "p" },
      stages: [],
      errors: [
        { message: "e2", line: 4, column: 1 },
        { message: "e1", line: 2, column: 3 },
      ],
      warnings: [
        { message: "w", line: 2, column: 3 },
        { message: "w0", line: 2, column: 1 },
      ],
    });
    assert.deepEqual(
      text.split("\n").map((line) => line.replace(/ title=.*::/, " ")),
      [
        "::warning w0",
        "::error e1",
        "::warning w",
        "::error e2",
        "p.md: invalid plan: 2 errors, 2 warnings",
        "",
      ],
    );
  });

  it("escapes a message's %, CR and LF, and also : and , in property values", () => {
    assert.equal(escapeData("100% done\r\nnext"), "100%25 done%0D%0Anext");
    assert.equal(escapeProperty("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    assert.equal(
      formatWorkflowCommand("error", { file: "dir,x/PLAN:y.md", line: 3 }, "a: b, c"),
      "::error file=dir%2Cx/PLAN%3Ay.md,line=3::a: b, c",
    );
    assert.equal(formatWorkflowCommand("notice", {}, "plain"), "::notice::plain");
  });
});

describe("limitPlanFiles and describeRefusedPlans: at most max_plans_per_pull plans a pull request", () => {
  const files = ["p1", "p2", "p3", "p4"].map((path) => ({ path }));

  it("keeps the plans already running first, then newcomers in file order", () => {
    const { kept, refused } = limitPlanFiles(files, new Set(["p3"]), 2);
    assert.deepEqual(
      kept.map((f) => f.path),
      ["p3", "p1"],
    );
    assert.deepEqual(
      refused.map((f) => f.path),
      ["p2", "p4"],
    );
  });

  it("refuses none when the files fit", () => {
    const { kept, refused } = limitPlanFiles(files, new Set(), 4);
    assert.equal(kept.length, 4);
    assert.deepEqual(refused, []);
  });

  it("names up to five refused plans, then counts the rest", () => {
    const names = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `PLAN-${i + 1}.md` }));
    assert.equal(
      describeRefusedPlans(names(2), 3),
      "this pull request has more plan files than .github/loom.yml's max_plans_per_pull (3): loom does not run PLAN-1.md, PLAN-2.md; split them over several pull requests or raise the limit",
    );
    assert.match(
      describeRefusedPlans(names(5), 3),
      /loom does not run PLAN-1\.md, PLAN-2\.md, PLAN-3\.md, PLAN-4\.md, PLAN-5\.md; split/,
    );
    assert.match(
      describeRefusedPlans(names(7), 3),
      /loom does not run PLAN-1\.md, PLAN-2\.md, PLAN-3\.md, PLAN-4\.md, PLAN-5\.md and 2 more; split/,
    );
  });
});

describe("checkStageLimit: max_stages_per_plan from .github/loom.yml", () => {
  const text = planMarkdown([
    ...HEADER,
    ...goodStage("a"),
    "    - name: Stage b",
    '      id: "b"',
    "    - id: 'c'",
    "      name: Stage c",
  ]);
  const parsed = parsePlan(PATH, text);
  assert.ok(parsed.ok);
  const plan = parsed.plan;

  it("passes a plan at the limit", () => {
    assert.equal(checkStageLimit(plan, text, 3), null);
  });

  it("reports the first stage over the limit at its id line, also when it is not first in its mapping", () => {
    assert.deepEqual(checkStageLimit(plan, text, 1), {
      message:
        "the plan has 3 stages, more than .github/loom.yml's max_stages_per_plan (1): split it into several plans or raise the limit",
      line: 15,
      column: 1,
      stage: "b",
    });
  });

  it("finds a single-quoted id", () => {
    assert.equal(checkStageLimit(plan, text, 2)?.line, 16);
    assert.equal(checkStageLimit(plan, text, 2)?.stage, "c");
  });

  it("falls back to line 1 when the id line cannot be found", () => {
    const found = checkStageLimit(plan, "no ids here", 2);
    assert.deepEqual(found && { line: found.line, column: found.column, stage: found.stage }, {
      line: 1,
      column: 1,
      stage: "c",
    });
  });

  it("does not take an id that only starts like the one sought", () => {
    const other = "  - id: cc\n  - id: c\n";
    assert.equal(checkStageLimit(plan, other, 2)?.line, 2);
  });

  it("finds ids written with extra spaces, and not a key that only ends in id", () => {
    const spaced = planMarkdown([
      ...HEADER,
      ...goodStage("build"),
      "      sandbox:",
      "        uid: docs",
      "    -   id:  docs",
      "        name: Docs",
      "    -  id: 'check'",
      "       name: Check",
    ]);
    const parsed = parsePlan(PATH, spaced);
    assert.ok(parsed.ok, JSON.stringify(parsed.ok ? [] : parsed.errors));
    assert.deepEqual(
      [1, 2].map((max) => [
        checkStageLimit(parsed.plan, spaced, max)?.stage,
        checkStageLimit(parsed.plan, spaced, max)?.line,
      ]),
      [
        ["docs", 16],
        ["check", 18],
      ],
    );
  });
});

describe("plan file names through their lifecycle", () => {
  it("isPlanPath: PLAN-*.md in any folder, with the reference CLI's prefixes", () => {
    assert.equal(isPlanPath("PLAN-a.md"), true);
    assert.equal(isPlanPath("doc/plans/DONE-PLAN-a.md"), true);
    assert.equal(isPlanPath("doc/plans/IN_PROGRESS-PLAN-a.md"), true);
    assert.equal(isPlanPath("doc/plans/OLD-PLAN-a.md"), false);
    assert.equal(isPlanPath("doc/plans/PLAN-a.mdx"), false);
    assert.equal(isPlanPath("PLAN-a.md/x"), false);
  });

  it("strips and swaps prefixes in the file name only", () => {
    assert.equal(stripLifecyclePrefix("doc/IN_PROGRESS-PLAN-x.md"), "doc/PLAN-x.md");
    assert.equal(stripLifecyclePrefix("doc/x-DONE-PLAN-x.md"), "doc/x-DONE-PLAN-x.md");
    assert.equal(stripLifecyclePrefix("PLAN-x.md"), "PLAN-x.md");
    assert.equal(withLifecyclePrefix("DONE-PLAN-x.md", "IN_PROGRESS-"), "IN_PROGRESS-PLAN-x.md");
    assert.equal(withLifecyclePrefix("a/b/PLAN-x.md", "DONE-"), "a/b/DONE-PLAN-x.md");
  });

  it("lists every name once, the given one first", () => {
    assert.deepEqual(listLifecycleNames("doc/DONE-PLAN-x.md"), [
      "doc/DONE-PLAN-x.md",
      "doc/IN_PROGRESS-PLAN-x.md",
      "doc/PLAN-x.md",
    ]);
  });
});
