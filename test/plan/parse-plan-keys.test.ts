import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import type { PlanResult } from "../../src/plan/plan.ts";
import { HEADER, planMarkdown } from "./plan-markdown.ts";

const parse = (yaml: readonly string[]): PlanResult =>
  parsePlan("doc/plans/PLAN-test.md", planMarkdown(yaml));

/** Each diagnostic as `line:column message`, in file order. */
const listed = (list: readonly { line: number; column: number; message: string }[]): string[] =>
  list.map((d) => `${d.line}:${d.column} ${d.message}`);

/** A verified, described stage "a" (lines 9–12); the lines after it are the case's. */
const stageA = [
  "    - id: a",
  "      name: A",
  "      description: Change the parser in src/a and cover the change with tests",
  '      acceptance: ["npm test"]',
];

describe("keys of other versions of the reference that mean nothing on GitHub are warnings that say why", () => {
  it("stage keys", () => {
    const result = parse([
      ...HEADER,
      ...stageA,
      "      execution_backend: x",
      "      terminal_backend: x",
      "      context_ceiling_tokens: 1",
      "      plan_overview: x",
      "      skills: x",
      "      contracts: x",
      "      harness: x",
      "      reachable: x",
    ]);
    assert.ok(result.ok);
    const unread = "is ignored here: loom does not read it";
    assert.deepEqual(listed(result.warnings), [
      '13:7 stage "a": `execution_backend` is ignored here: stages run on GitHub Actions runners',
      '14:7 stage "a": `terminal_backend` is ignored here: no terminal windows are opened on GitHub',
      '15:7 stage "a": `context_ceiling_tokens` is ignored here: use `context_budget` (percent) to bound a session\'s context',
      `16:7 stage "a": \`plan_overview\` ${unread}`,
      `17:7 stage "a": \`skills\` ${unread}`,
      `18:7 stage "a": \`contracts\` ${unread}`,
      `19:7 stage "a": \`harness\` ${unread}`,
      `20:7 stage "a": \`reachable\` ${unread}`,
    ]);
  });

  it("plan keys", () => {
    const result = parse([
      "loom:",
      "  version: 1",
      "  context_ceiling_tokens: 1",
      "  subagent_ceiling_tokens: 1",
      "  ratchet_files: x",
      "  terminal_backend: x",
      "  stages:",
      ...stageA,
    ]);
    assert.ok(result.ok);
    assert.deepEqual(listed(result.warnings), [
      "8:3 `loom.context_ceiling_tokens` is ignored here: use a stage's `context_budget` (percent)",
      "9:3 `loom.subagent_ceiling_tokens` is ignored here: sessions are bounded by `context_budget`, `max_turns` and `max_budget_usd`",
      "10:3 `loom.ratchet_files` is ignored here: loom keeps no ratchet files",
      "11:3 `loom.terminal_backend` is ignored here: no terminal windows are opened on GitHub",
    ]);
  });

  it("a key close to one of them is not taken for a misspelling of it", () => {
    const result = parse([...HEADER, ...stageA, "      skill: x"]);
    assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.errors));
    assert.deepEqual(listed(result.warnings), ['13:7 stage "a": unknown key `skill` is kept but not used']);
  });
});

describe("other tools' names for dependencies and acceptance are errors naming the loom key", () => {
  it("in any letter case and with - for _", () => {
    const result = parse([
      ...HEADER,
      ...stageA.slice(0, 3),
      "      depends_on: []",
      "      depends: []",
      "      deps: []",
      "      requires: []",
      "      acceptance_criteria: []",
      "      Depends-On: []",
    ]);
    const fix = "as written it is not used; fix the spelling";
    assert.deepEqual(listed(result.ok ? [] : result.errors), [
      `12:7 stage "a": unknown key \`depends_on\` (did you mean \`dependencies\`?): ${fix}`,
      `13:7 stage "a": unknown key \`depends\` (did you mean \`dependencies\`?): ${fix}`,
      `14:7 stage "a": unknown key \`deps\` (did you mean \`dependencies\`?): ${fix}`,
      `15:7 stage "a": unknown key \`requires\` (did you mean \`dependencies\`?): ${fix}`,
      `16:7 stage "a": unknown key \`acceptance_criteria\` (did you mean \`acceptance\`?): ${fix}`,
      `17:7 stage "a": unknown key \`Depends-On\` (did you mean \`dependencies\`?): ${fix}`,
    ]);
  });
});

describe("unknown keys inside a stage's checks", () => {
  it("are errors when misspelt and warnings otherwise, in every kind of check", () => {
    const result = parse([
      ...HEADER,
      ...stageA,
      "      wiring: [{source: a.ts, pattern: x, sourc: y, zz: 1}]",
      "      before_stage: [{command: x, exit_cod: 1, qq: 1}]",
      "      after_stage: [{command: x, stdout_contain: [a]}]",
      "      dead_code_check: {command: x, fail_pattern: [a], other: 1}",
      "      wiring_tests: [{command: x, nme: y, success_criteria: {exit_cod: 1}}]",
      "      implementers: [claude, codex]",
    ]);
    const fix = "as written it is not used; fix the spelling";
    assert.deepEqual(listed(result.ok ? [] : result.errors), [
      `14:35 stage "a": unknown key \`before_stage[0].exit_cod\` (did you mean \`exit_code\`?): ${fix}`,
      `15:34 stage "a": unknown key \`after_stage[0].stdout_contain\` (did you mean \`stdout_contains\`?): ${fix}`,
      `16:37 stage "a": unknown key \`dead_code_check.fail_pattern\` (did you mean \`fail_patterns\`?): ${fix}`,
      `17:62 stage "a": unknown key \`wiring_tests[0].success_criteria.exit_cod\` (did you mean \`exit_code\`?): ${fix}`,
    ]);
    assert.deepEqual(listed(result.warnings), [
      '13:16 stage "a": wiring #1 has no description: say what it proves (the reference CLI requires one)',
      '13:43 stage "a": unknown key `wiring[0].sourc` is kept but not used (`source` is set too)',
      '13:53 stage "a": unknown key `wiring[0].zz` is kept but not used',
      '14:48 stage "a": unknown key `before_stage[0].qq` is kept but not used',
      '16:56 stage "a": unknown key `dead_code_check.other` is kept but not used',
      '17:22 stage "a": wiring_tests #1 has no name (the reference CLI requires one)',
      '17:35 stage "a": unknown key `wiring_tests[0].nme` is kept but not used',
      '18:7 stage "a": `implementers: [claude, codex]` is ignored here: each stage runs one Claude Code session on GitHub Actions, which has no codex lane; the work stays with Claude',
    ]);
  });

  it("checks known keys of every check kind without a word", () => {
    const result = parse([
      ...HEADER,
      "    - id: a",
      "      name: A",
      "      description: Change the parser in src/a and cover the change with tests",
      "      acceptance:",
      "        - {command: x, description: d, stdout_contains: [a], stdout_not_contains: [b], stderr_empty: true, exit_code: 0, timeout_secs: 5}",
      "      wiring: [{source: a.ts, pattern: x, description: d, literal: true}]",
      "      wiring_tests:",
      "        - {name: n, command: x, description: d, success_criteria: {exit_code: 0, stdout_contains: [a], stdout_not_contains: [b], stderr_empty: true, stderr_contains: [c]}}",
      "      dead_code_check: {command: x, fail_patterns: [a], ignore_patterns: [b]}",
      "      before_stage: [{command: x, exit_code: 1}]",
      "      after_stage: [{command: x, stdout_contains: [a]}]",
      "      implementers: [claude]",
    ]);
    assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.errors));
    assert.deepEqual(result.warnings, []);
  });

  it("an empty success_criteria mapping draws nothing", () => {
    const result = parse([
      ...HEADER,
      ...stageA,
      "      wiring_tests: [{name: n, command: x, success_criteria: {}}]",
    ]);
    assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.errors));
    assert.deepEqual(result.warnings, []);
  });
});
