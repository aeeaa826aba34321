import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import { HEADER, planMarkdown } from "./plan-markdown.ts";

/** Every error of a plan, as `line:column message` in file order. */
const errorsOf = (yaml: readonly string[]): string[] => {
  const result = parsePlan("doc/plans/PLAN-test.md", planMarkdown(yaml));
  return result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.message}`);
};

/** Stage "a" with no acceptance (lines 9–11); a case adds its own lines from line 12. */
const stageA = [
  "    - id: a",
  "      name: A",
  "      description: Change the parser in src/a and cover the change with tests",
];
const verified = [...stageA, '      acceptance: ["true"]'];

describe("schema errors say what the field takes and what was written, at the value", () => {
  it("numbers in a range, lists of checks, mappings, enums, and a dead-code check without its command", () => {
    assert.deepEqual(
      errorsOf([
        "loom:",
        '  version: "1"',
        "  stages:",
        "    - id: a",
        "      name: A",
        "      context_budget: 0",
        "      acceptance: [5]",
        "      sandbox: 3",
        "      stage_type: weird",
        "      dead_code_check: {fail_patterns: x}",
      ]),
      [
        '7:12 unsupported version "1": loom reads version 1 plans',
        '11:23 stage "a": `context_budget` must be a number from 1 to 100, got 0',
        '12:20 stage "a": `acceptance[0]` must be text or a mapping, got 5',
        '13:16 stage "a": `sandbox` must be a mapping, got 3',
        '14:19 stage "a": `stage_type` must be one of standard, knowledge, integration-verify, knowledge-distill, got "weird"',
        '15:24 stage "a": `dead_code_check.command` is required',
        '15:40 stage "a": `dead_code_check.fail_patterns` must be a list, got "x" (write [x] for a list of one)',
      ],
    );
  });

  it("nested check fields, and values shown as a reader recognises them", () => {
    assert.deepEqual(
      errorsOf([
        ...HEADER,
        "    - id: a",
        "      name: A",
        "      wiring_tests: [{command: x, success_criteria: {exit_code: a}}]",
        "      acceptance: [{command: x, timeout_secs: 0, stdout_contains: abc}]",
        "      description: [1]",
        "      bug_fix: yes",
        "      model: {a: 1}",
        '      files: "a very long string that goes on and on past forty two characters"',
        "      setup: [true]",
        '      artifacts: "two words"',
        `      before_stage: "${"d".repeat(40)}"`,
        `      after_stage: "${"d".repeat(41)}"`,
        `      parallel_group: ${"1".repeat(5)}`,
      ]),
      [
        '11:65 stage "a": `wiring_tests[0].success_criteria.exit_code` must be a whole number, got "a"',
        '12:47 stage "a": `acceptance[0].timeout_secs` must be a positive whole number, got 0',
        '12:67 stage "a": `acceptance[0].stdout_contains` must be a list, got "abc" (write [abc] for a list of one)',
        '13:20 stage "a": `description` must be text, got a list',
        '14:16 stage "a": `bug_fix` must be true or false, got "yes"',
        '15:14 stage "a": `model` must be text, got a mapping',
        '16:14 stage "a": `files` must be a list, got "a very long string that goes on and on …"',
        '17:15 stage "a": `setup[0]` must be text, got true',
        '18:18 stage "a": `artifacts` must be a list, got "two words"',
        `19:21 stage "a": \`before_stage\` must be a list, got "${"d".repeat(40)}" (write [${"d".repeat(40)}] for a list of one)`,
        `20:20 stage "a": \`after_stage\` must be a list, got "${"d".repeat(39)}…"`,
        '21:23 stage "a": `parallel_group` must be text, got 11111',
      ],
    );
  });

  it("plan-level fields are named under loom.", () => {
    assert.deepEqual(
      errorsOf([
        "loom:",
        "  version: null",
        "  sandbox: [1]",
        "  auto_merge: {a: 1}",
        "  stages:",
        ...verified,
      ]),
      [
        "7:12 unsupported version null: loom reads version 1 plans",
        "8:12 `loom.sandbox` must be a mapping, got a list",
        "9:15 `loom.auto_merge` must be true or false, got a mapping",
      ],
    );
  });

  it("stages without a text id are named by their place in the list", () => {
    assert.deepEqual(
      errorsOf([
        "loom:",
        "  version: [1]",
        "  stages:",
        "    - id: [a]",
        "      name: 5",
        "    - 7",
        "    - id: b",
      ]),
      [
        "7:12 unsupported version [1]: loom reads version 1 plans",
        "9:11 stage #1: `id` must be text, got a list",
        "10:13 stage #1: `name` must be text, got 5",
        "11:7 stage #2 must be a mapping with at least `id` and `name`",
        '12:7 stage "b": `name` is required',
      ],
    );
  });
});

describe("commands must be runnable", () => {
  it("an acceptance command with a control character names it and its position; tab, CR, LF and NBSP are fine", () => {
    assert.deepEqual(
      errorsOf([
        ...HEADER,
        ...stageA,
        "      acceptance:",
        '        - "a\\x7fb"',
        '        - "\\x9f"',
        '        - "tab\\there\\r\\n"',
        '        - "nbsp\\u00a0"',
        '        - "x\\x1f"',
        `        - "${"y".repeat(1024)}"`,
        '        - "\\x80"',
      ]),
      [
        '13:11 stage "a": acceptance #1 command contains a control character (U+007F) at position 2',
        '14:11 stage "a": acceptance #2 command contains a control character (U+009F) at position 1',
        '17:11 stage "a": acceptance #5 command contains a control character (U+001F) at position 2',
        '19:11 stage "a": acceptance #7 command contains a control character (U+0080) at position 1',
      ],
    );
  });

  it("setup, wiring test, truth check and dead-code commands with a control character", () => {
    assert.deepEqual(
      errorsOf([
        ...HEADER,
        ...verified,
        '      setup: ["echo \\x01"]',
        '      before_stage: [{command: "a\\x7f"}]',
        '      after_stage: [{command: "b\\u0085"}]',
        '      wiring_tests: [{command: "c\\x00"}]',
        '      dead_code_check: {command: "d\\x1f"}',
      ]),
      [
        '13:15 stage "a": command at setup.0 contains a control character',
        '14:32 stage "a": command at before_stage.0.command contains a control character',
        '15:31 stage "a": command at after_stage.0.command contains a control character',
        '16:32 stage "a": command at wiring_tests.0.command contains a control character',
        '17:34 stage "a": command at dead_code_check.command contains a control character',
      ],
    );
  });

  it("a name of spaces only is empty", () => {
    assert.deepEqual(
      errorsOf([...HEADER, "    - id: a", '      name: "   "', '      acceptance: ["true"]']),
      ['10:13 stage "a": `name` is empty'],
    );
  });
});

describe("paths stay inside the repository", () => {
  it("absolute paths are refused, and paths below an absolute working_dir count from the root", () => {
    assert.deepEqual(
      errorsOf([
        ...HEADER,
        ...verified,
        "      working_dir: /srv",
        '      artifacts: ["C:\\\\x"]',
        '      wiring: [{source: "../../w.ts", pattern: "(?i)x"}]',
        '      files: ["a/../../b", "./ok/*.ts"]',
      ]),
      [
        '13:20 stage "a": `working_dir` "/srv" must be relative to the repository, not absolute',
        '14:19 stage "a": `artifacts` entry "C:\\x" must be relative to the repository, not absolute',
        '15:25 stage "a": `wiring` source "../../w.ts" leaves the repository through ".." (from working_dir "/srv")',
        '16:15 stage "a": `files` entry "a/../../b" leaves the repository through ".." (from working_dir "/srv")',
      ],
    );
  });

  it("a working_dir that climbs out after going in", () => {
    assert.deepEqual(errorsOf([...HEADER, ...verified, '      working_dir: "a/../.."']), [
      '13:20 stage "a": `working_dir` "a/../.." leaves the repository through ".."',
    ]);
  });

  it("paths count from working_dir", () => {
    assert.deepEqual(
      errorsOf([
        ...HEADER,
        ...verified,
        '      working_dir: "pkg"',
        '      wiring: [{source: "../../w.ts", pattern: "x"}]',
        '      artifacts: ["../x", "./.././pkg//y"]',
      ]),
      [
        '14:25 stage "a": `wiring` source "../../w.ts" leaves the repository through ".." (from working_dir "pkg")',
      ],
    );
  });
});

describe("wiring patterns must compile", () => {
  it("too long, an unsupported inline flag, a broken unicode class", () => {
    const long = "p".repeat(501);
    assert.deepEqual(
      errorsOf([
        ...HEADER,
        ...verified,
        `      wiring: [{source: "a.ts", pattern: "${long}"}, {source: a.ts, pattern: "(?q)x"}, {source: a.ts, pattern: "\\\\p{Lu"}]`,
      ]),
      [
        '13:42 stage "a": wiring #1 has an invalid regex pattern: pattern is 501 characters; the limit is 500',
        '13:572 stage "a": wiring #2 has an invalid regex pattern: inline flag "q" is not supported (use i, m or s)',
        '13:606 stage "a": wiring #3 has an invalid regex pattern: Invalid regular expression: /\\p{Lu/u: Invalid property name',
      ],
    );
  });
});
