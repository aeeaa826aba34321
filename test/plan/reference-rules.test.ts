import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import { HEADER, planMarkdown } from "./plan-markdown.ts";
import { OPTIONAL_STAGE_FIELDS } from "./reference-schema.ts";

/*
 * The reference CLI's own unit tests are the specification (cosmix/loom at 1c465307,
 * loom/src/plan/schema/tests/*.rs and validation.rs): what its parsing or validate() refuses is an
 * error here at the line, naming the same rule; what it accepts parses. Each case names the
 * reference test it ports.
 */

/** Errors and warnings as `line:column message`; the plan's stage "a" starts on line 9. */
function diagnose(yaml: readonly string[]): { ok: boolean; errors: string[]; warnings: string[] } {
  const result = parsePlan("doc/plans/PLAN-test.md", planMarkdown(yaml));
  const show = (list: readonly { line: number; column: number; message: string }[]) =>
    list.map((d) => `${d.line}:${d.column} ${d.message}`);
  return { ok: result.ok, errors: result.ok ? [] : show(result.errors), warnings: show(result.warnings) };
}

/** A described, verified stage "a" (lines 9–12); a case's lines start on line 13. */
const stageA = (extra: readonly string[]): string[] => [
  ...HEADER,
  "    - id: a",
  "      name: A",
  "      description: Fix the off-by-one in src/parser.ts and cover it with a test",
  '      acceptance: ["npm test"]',
  ...extra,
];

type Case = { name: string; lines: string[]; errors?: string[]; warnings?: string[] };

function runCases(cases: readonly Case[]): void {
  for (const { name, lines, errors = [], warnings } of cases) {
    it(name, () => {
      const result = diagnose(stageA(lines));
      assert.deepEqual(result.errors, errors);
      assert.equal(result.ok, errors.length === 0);
      if (warnings) assert.deepEqual(result.warnings, warnings);
    });
  }
}

describe("bug_fix and regression_test (regression_test_tests.rs)", () => {
  runCases([
    {
      name: "test_bug_fix_without_regression_test_fails",
      lines: ["      bug_fix: true"],
      errors: [
        '13:16 stage "a": bug_fix stages must define a regression_test with a file and must_contain patterns',
      ],
    },
    {
      name: "test_bug_fix_with_regression_test_passes (no warning: the test file is checked after the session)",
      lines: [
        "      bug_fix: true",
        "      regression_test: {file: tests/regression.rs, must_contain: [fixed]}",
      ],
      warnings: [],
    },
    {
      name: "test_regression_test_without_bug_fix_fails",
      lines: ["      regression_test: {file: tests/some.rs, must_contain: [x]}"],
      errors: [
        '13:24 stage "a": regression_test is set but bug_fix is not true: regression tests accompany bug_fix: true',
      ],
    },
    {
      name: "bug_fix: false with a regression_test fails the same way",
      lines: ["      bug_fix: false", "      regression_test: {file: tests/some.rs, must_contain: [x]}"],
      errors: [
        '14:24 stage "a": regression_test is set but bug_fix is not true: regression tests accompany bug_fix: true',
      ],
    },
    {
      name: "test_regression_test_empty_file_fails",
      lines: ["      bug_fix: true", '      regression_test: {file: "", must_contain: [x]}'],
      errors: ['14:31 stage "a": regression_test.file cannot be empty'],
    },
    {
      name: "test_regression_test_path_traversal_fails",
      lines: ["      bug_fix: true", "      regression_test: {file: ../tests/r.rs, must_contain: [x]}"],
      errors: ['14:31 stage "a": regression_test.file "../tests/r.rs" leaves the repository through ".."'],
    },
    {
      name: "test_regression_test_absolute_path_fails",
      lines: ["      bug_fix: true", "      regression_test: {file: /tmp/r.rs, must_contain: [x]}"],
      errors: [
        '14:31 stage "a": regression_test.file "/tmp/r.rs" must be relative to the repository, not absolute',
      ],
    },
    {
      name: "test_regression_test_empty_must_contain_fails",
      lines: ["      bug_fix: true", "      regression_test: {file: tests/r.rs, must_contain: []}"],
      errors: ['14:24 stage "a": regression_test.must_contain must have at least one pattern'],
    },
    {
      name: "test_regression_test_serde_defaults: must_contain left out is empty, which validate() refuses",
      lines: ["      bug_fix: true", "      regression_test: {file: tests/r.rs}"],
      errors: ['14:24 stage "a": regression_test.must_contain must have at least one pattern'],
    },
    {
      name: "a regression_test without its file is refused by the schema",
      lines: ["      bug_fix: true", "      regression_test: {must_contain: [x]}"],
      errors: ['14:24 stage "a": `regression_test.file` is required'],
    },
  ]);

  it("test_full_plan_with_regression_test_yaml", () => {
    const result = diagnose([
      "loom:",
      "  version: 1",
      "  sandbox:",
      "    enabled: true",
      "  stages:",
      "    - id: bug-fix-stage",
      "      name: Bug Fix Stage",
      "      description: Fix the crash when a config file is empty and add a test",
      '      working_dir: "."',
      "      stage_type: standard",
      "      bug_fix: true",
      "      regression_test:",
      "        file: tests/regression_test.rs",
      "        must_contain:",
      "          - test_bug_fixed",
      "          - assert_eq",
      "      acceptance:",
      "        - cargo test",
    ]);
    assert.deepEqual(result.errors, []);
    assert.ok(result.ok);
    assert.ok(!result.warnings.some((w) => w.includes("regression_test")), result.warnings.join("\n"));
  });
});

const CODEX =
  "is ignored here: each stage runs one Claude Code session on GitHub Actions, which has no codex lane";

describe("implementers (implementer_tests.rs)", () => {
  runCases([
    {
      name: "implementers_codex_only_parses (warned: no codex lane here)",
      lines: ["      implementers: [codex]"],
      warnings: [`13:7 stage "a": \`implementers: [codex]\` ${CODEX}; the work stays with Claude`],
    },
    {
      name: "implementers_mixed_parses_and_preserves_preference_order",
      lines: ['      implementers: ["codex", "claude"]'],
      warnings: [`13:7 stage "a": \`implementers: [codex, claude]\` ${CODEX}; the work stays with Claude`],
    },
    { name: "implementers: [claude] draws nothing", lines: ["      implementers: [claude]"], warnings: [] },
    { name: "implementers_defaults_to_claude_when_omitted", lines: [], warnings: [] },
    {
      name: "implementers_unknown_lane_fails_to_parse",
      lines: ['      implementers: ["gemini"]'],
      errors: ['13:22 stage "a": `implementers[0]` must be one of claude, codex, got "gemini"'],
    },
    {
      name: "implementers_scalar_form_fails_to_parse",
      lines: ["      implementers: codex"],
      errors: [
        '13:21 stage "a": `implementers` must be a list, got "codex" (write [codex] for a list of one)',
      ],
    },
    {
      name: "empty_implementers_list_is_a_validation_error",
      lines: ["      implementers: []"],
      errors: [
        '13:21 stage "a": implementers cannot be an empty list: leave it out for the default [claude], or name the lanes this stage may use',
      ],
    },
    {
      name: "duplicate_lane_is_a_validation_error",
      lines: ['      implementers: ["codex", "claude", "codex"]'],
      errors: [
        '13:41 stage "a": implementers lists codex more than once: each lane may appear once (the order says which one routine work prefers)',
      ],
    },
  ]);
});

describe("reasoning_effort, auto_merge, ultracode, execution_mode, subagent_timeout_secs (their *_tests.rs)", () => {
  for (const effort of ["low", "medium", "high", "xhigh", "max"]) {
    it(`accepts_each_allowed_value: ${effort}`, () => {
      const result = parsePlan(
        "doc/plans/PLAN-t.md",
        planMarkdown(stageA([`      reasoning_effort: "${effort}"`])),
      );
      assert.ok(result.ok);
      assert.equal(result.plan.stages[0]?.reasoning_effort, effort);
    });
  }
  const effortError = (got: string) =>
    `13:25 stage "a": \`reasoning_effort\` must be one of low, medium, high, xhigh, max, got ${got}`;
  runCases([
    {
      name: "rejects_shell_injection_attempt",
      lines: ['      reasoning_effort: "low; rm -rf / #"'],
      errors: [effortError('"low; rm -rf / #"')],
    },
    {
      name: "rejects_random_string",
      lines: ["      reasoning_effort: ultra-mega"],
      errors: [effortError('"ultra-mega"')],
    },
    {
      name: "rejects_uppercase_variant",
      lines: ["      reasoning_effort: HIGH"],
      errors: [effortError('"HIGH"')],
    },
    { name: "missing_field_parses_as_none", lines: [], warnings: [] },
    { name: "null_field_parses_as_none", lines: ["      reasoning_effort: null"], warnings: [] },
    {
      name: "test_parse_auto_merge_stage_level: a person merges the stage",
      lines: ["      auto_merge: false"],
      warnings: [],
    },
    { name: "auto_merge: true: loom merges it", lines: ["      auto_merge: true"], warnings: [] },
    {
      name: "ultracode_true_parses (warned)",
      lines: ["      ultracode: true"],
      warnings: [
        '13:7 stage "a": `ultracode: true` is ignored here: a stage runs as one headless Claude Code session, without ultracode\'s Workflow orchestration',
      ],
    },
    { name: "ultracode_defaults_to_false_when_omitted", lines: ["      ultracode: false"], warnings: [] },
    {
      name: "ultracode takes true or false",
      lines: ["      ultracode: x"],
      errors: ['13:18 stage "a": `ultracode` must be true or false, got "x"'],
    },
    { name: "execution_mode: single", lines: ["      execution_mode: single"], warnings: [] },
    {
      name: "execution_mode: team (warned)",
      lines: ["      execution_mode: team"],
      warnings: [
        '13:7 stage "a": `execution_mode: team` is a hint loom does not act on: the stage runs as one Claude Code session (the reference does not act on it either)',
      ],
    },
    {
      name: "execution_mode other than single or team",
      lines: ["      execution_mode: parallel"],
      errors: ['13:23 stage "a": `execution_mode` must be one of single, team, got "parallel"'],
    },
    {
      name: "subagent_timeout_secs_parses, 0 included as a u64 (warned)",
      lines: ["      subagent_timeout_secs: 0"],
      warnings: [
        '13:7 stage "a": `subagent_timeout_secs` is not used yet: a session without output for the action\'s `silence_timeout_minutes` (default 15) is stopped as hung, whatever this says (the reference only reports a silent session)',
      ],
    },
    {
      name: "subagent_timeout_secs is a whole number of seconds",
      lines: ["      subagent_timeout_secs: -1"],
      errors: ['13:30 stage "a": `subagent_timeout_secs` must be a whole number at least 0, got -1'],
    },
  ]);

  it("test_parse_auto_merge_plan_level: loom.auto_merge: true parses and draws nothing", () => {
    const result = diagnose([
      "loom:",
      "  version: 1",
      "  auto_merge: true",
      "  stages:",
      ...stageA([]).slice(3),
    ]);
    assert.deepEqual({ errors: result.errors, warnings: result.warnings }, { errors: [], warnings: [] });
  });
});

describe("truth checks, artifacts and wiring (validation.rs)", () => {
  const many = (n: number, item: string) => Array.from({ length: n }, () => item).join(", ");
  runCases([
    {
      name: "more than 20 before_stage checks",
      lines: [`      before_stage: [${many(21, "{command: x}")}]`],
      errors: ['13:21 stage "a": too many before_stage checks (21, max 20)'],
    },
    { name: "20 after_stage checks are fine", lines: [`      after_stage: [${many(20, "{command: x}")}]`] },
    {
      name: "an empty truth-check command",
      lines: ['      after_stage: [{command: "  "}]'],
      errors: ['13:31 stage "a": after_stage check #1 command cannot be empty'],
    },
    {
      name: "a truth-check command over 500 bytes, counted in UTF-8 as the reference does",
      lines: [`      before_stage: [{command: "${"é".repeat(251)}"}, {command: "${"é".repeat(250)}"}]`],
      errors: ['13:32 stage "a": before_stage check #1 command too long (502 bytes, max 500)'],
    },
    {
      name: "more than 100 artifacts",
      lines: [
        `      artifacts: [${many(101, "a.ts")}]`,
        "      wiring: [{source: a.ts, pattern: abcdef, description: d}]",
      ],
      errors: ['13:18 stage "a": too many artifacts (101, max 100)'],
    },
    {
      name: "a wiring check without a description, or an empty one",
      lines: [
        '      wiring: [{source: a.ts, pattern: abcdef}, {source: b.ts, pattern: ghijkl, description: " "}]',
      ],
      warnings: [
        '13:16 stage "a": wiring #1 has no description: say what it proves (the reference CLI requires one)',
        '13:49 stage "a": wiring #2 has no description: say what it proves (the reference CLI requires one)',
      ],
    },
    {
      name: "a wiring test without a name",
      lines: ["      wiring_tests: [{command: x}]"],
      warnings: ['13:22 stage "a": wiring_tests #1 has no name (the reference CLI requires one)'],
    },
    {
      name: "a leaf standard stage with artifacts and no wiring",
      lines: ["      artifacts: [src/a.ts]"],
      warnings: [
        '13:7 stage "a" has artifacts but no wiring or wiring_tests, and no later stage checks they are wired in: add wiring checks or a stage that verifies the integration (the reference CLI refuses such a leaf stage)',
      ],
    },
  ]);

  it("an artifact stage another stage depends on, or a plan whose integration-verify stage has wiring, is not warned about", () => {
    const next = [
      "    - id: b",
      "      name: B",
      "      description: Use the new parser from the CLI entry point",
    ];
    const depended = diagnose(
      stageA(["      artifacts: [src/a.ts]", ...next, "      dependencies: [a]", "      acceptance: [x]"]),
    );
    const verified = diagnose(
      stageA([
        "      artifacts: [src/a.ts]",
        ...next,
        "      stage_type: integration-verify",
        "      wiring_tests: [{name: n, command: x}]",
      ]),
    );
    for (const result of [depended, verified])
      assert.deepEqual(
        result.warnings.filter((w) => w.includes("no wiring or wiring_tests")),
        [],
      );
  });
});

describe("sandbox (validation.rs: globs, domains; permission modes)", () => {
  runCases([
    {
      name: "filesystem globs the glob crate refuses, at the entry",
      lines: ['      sandbox: {filesystem: {deny_read: ["~/.ssh/**", "a***"], allow_write: ["src/**b"]}}'],
      errors: [
        '13:55 stage "a": invalid sandbox deny_read glob pattern "a***": wildcards are either regular `*` or recursive `**` (near position 3)',
        '13:78 stage "a": invalid sandbox allow_write glob pattern "src/**b": recursive wildcards must form a single path component (near position 6)',
      ],
    },
    {
      name: "network domains with a space, a port or a scheme",
      lines: [
        '      sandbox: {network: {allowed_domains: ["*.github.com", "a b"], additional_domains: ["x.io:443", ""]}}',
      ],
      errors: [
        '13:61 stage "a": invalid sandbox allowed_domain "a b": domain cannot contain spaces',
        '13:90 stage "a": invalid sandbox additional_domain "x.io:443": invalid characters in domain',
        '13:102 stage "a": invalid sandbox additional_domain "": domain cannot be empty',
      ],
    },
    {
      name: "a permission mode written in Claude Code's camelCase",
      lines: ["      sandbox: {permission_mode: acceptEdits}"],
      errors: [
        '13:34 stage "a": `sandbox.permission_mode` must be one of default, accept-edits, auto, plan, bypass-permissions, got "acceptEdits"',
      ],
    },
    {
      name: "allow_unix_sockets takes a list or false",
      lines: ["      sandbox: {network: {allow_unix_sockets: x}}"],
      errors: [
        '13:47 stage "a": `sandbox.network.allow_unix_sockets` must be true or false or a list, got "x"',
      ],
    },
    {
      name: "a misspelt sandbox key is an error, an unknown one a warning, and the enforced sandbox itself is not warned about",
      lines: ["      sandbox: {filesystm: {}, flavour: x}"],
      errors: [
        '13:17 stage "a": unknown key `sandbox.filesystm` (did you mean `filesystem`?): as written it is not used; fix the spelling',
      ],
      warnings: ['13:32 stage "a": unknown key `sandbox.flavour` is kept but not used'],
    },
  ]);

  for (const mode of ["default", "accept-edits", "auto", "plan", "bypass-permissions"]) {
    it(`permission_mode ${mode} parses`, () => {
      assert.deepEqual(diagnose(stageA([`      sandbox: {permission_mode: ${mode}}`])).errors, []);
    });
  }

  it("plan-level sandbox globs and domains are checked the same way", () => {
    const result = diagnose([
      "loom:",
      "  version: 1",
      "  sandbox:",
      '    filesystem: {deny_write: ["[abc"]}',
      '    network: {allowed_domains: ["https://x.io"]}',
      "  stages:",
      ...stageA([]).slice(3),
    ]);
    assert.deepEqual(result.errors, [
      '9:31 invalid sandbox deny_write glob pattern "[abc": invalid range pattern (near position 0)',
      '10:33 invalid sandbox allowed_domain "https://x.io": invalid characters in domain',
    ]);
  });
});

describe("change_impact, adjudication, code_review (types.rs)", () => {
  const planWith = (lines: readonly string[]) =>
    diagnose(["loom:", "  version: 1", ...lines, "  stages:", ...stageA([]).slice(3)]);

  it("change_impact needs its baseline_command; its policy is fail, warn or skip", () => {
    assert.deepEqual(planWith(["  change_impact: {policy: ignore}"]).errors, [
      "8:18 `loom.change_impact.baseline_command` is required",
      '8:27 `loom.change_impact.policy` must be one of fail, warn, skip, got "ignore"',
    ]);
    assert.deepEqual(planWith(["  change_impact: {baseline_command: npm test, policy: warn}"]).errors, []);
  });

  it("change_impact that cannot find a failure is warned about (the reference accepts it)", () => {
    const noPatterns = planWith(["  change_impact: {baseline_command: npm test}"]);
    assert.deepEqual(noPatterns.errors, []);
    assert.ok(
      noPatterns.warnings.includes(
        "8:3 change_impact has no failure_patterns: loom runs the baseline and compare commands but no output line counts as a failure, so the stage never fails on its impact",
      ),
      noPatterns.warnings.join("\n"),
    );
    const bad = planWith([
      "  change_impact: {baseline_command: npm test, failure_patterns: [ok, '(?x)FAIL']}",
    ]);
    assert.deepEqual(bad.errors, []);
    assert.ok(
      bad.warnings.some(
        (w) =>
          w.startsWith(
            '8:70 change_impact failure pattern "(?x)FAIL" is not a valid regular expression: inline flag "x" is not supported',
          ) && w.endsWith("the change-impact check fails until it is fixed"),
      ),
      bad.warnings.join("\n"),
    );
    assert.deepEqual(
      planWith(["  change_impact: {baseline_command: npm test, policy: skip}"]).warnings.filter((w) =>
        w.includes("change_impact"),
      ),
      [],
    );
  });

  it("adjudication.max_amendments_per_stage is a u32", () => {
    assert.deepEqual(planWith(["  adjudication: {max_amendments_per_stage: -1}"]).errors, [
      "8:44 `loom.adjudication.max_amendments_per_stage` must be a whole number from 0 to 4294967295, got -1",
    ]);
  });

  runCases([
    {
      name: "code_review dimensions are a list, require_all true or false",
      lines: ["      code_review: {dimensions: security, require_all: yes}"],
      errors: [
        '13:33 stage "a": `code_review.dimensions` must be a list, got "security" (write [security] for a list of one)',
        '13:56 stage "a": `code_review.require_all` must be true or false, got "yes"',
      ],
    },
  ]);
});

describe("an explicit null on a field the reference reads as an Option counts as left out", () => {
  it("on a stage: each of them parses as absent", () => {
    const lines = [
      ...HEADER,
      "    - id: a",
      "      name: A",
      '      acceptance: ["npm test", {command: x, exit_code: null, stderr_empty: null, description: null}]',
      "      sandbox: {enabled: null, filesystem: null, permission_mode: null}",
      "      wiring_tests: [{name: n, command: x, description: null, success_criteria: {exit_code: null}}]",
      ...OPTIONAL_STAGE_FIELDS.map((key) => `      ${key}: null`),
    ];
    const result = parsePlan("doc/plans/PLAN-t.md", planMarkdown(lines));
    assert.ok(result.ok, JSON.stringify(result.ok ? null : result.errors));
    const [stage] = result.plan.stages;
    for (const key of OPTIONAL_STAGE_FIELDS) assert.equal(key in (stage ?? {}), false, key);
    assert.deepEqual(stage?.acceptance[1], { command: "x" });
    assert.deepEqual(stage?.sandbox, {});
    assert.deepEqual(stage?.wiring_tests[0], { name: "n", command: "x", success_criteria: {} });
  });

  it("on the plan: auto_merge, change_impact, adjudication, sandbox.permission_mode", () => {
    const result = diagnose([
      "loom:",
      "  version: 1",
      "  auto_merge: null",
      "  change_impact: null",
      "  adjudication: null",
      "  sandbox: {permission_mode: null}",
      "  stages:",
      ...stageA([]).slice(3),
    ]);
    assert.deepEqual(result.errors, []);
  });

  it("any other null is still a type error", () => {
    assert.deepEqual(
      diagnose(stageA(["      files: null", "      sandbox: null", "      ultracode: null"])).errors,
      [
        '13:14 stage "a": `files` must be a list, got an empty value',
        '14:16 stage "a": `sandbox` must be a mapping, got an empty value',
        '15:18 stage "a": `ultracode` must be true or false, got an empty value',
      ],
    );
  });
});
