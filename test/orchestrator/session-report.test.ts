import { test } from "node:test";
import assert from "node:assert/strict";
import { StageResult } from "../../src/artifacts/stage-result.ts";
import {
  REPORT_MAX_CHECKS,
  REPORT_MAX_DEVIATIONS,
  REPORT_MAX_TAIL,
  REPORT_MAX_TEXT,
  toSessionReport,
} from "../../src/orchestrator/session-report.ts";

/** A `loom-result` as the action uploads it, read through its schema like the app reads it. */
function makeResult(fields: Record<string, unknown> = {}): StageResult {
  return StageResult.parse({
    version: 1,
    plan_id: "PLAN-demo",
    stage_id: "a",
    attempt: 1,
    kind: "stage",
    outcome: "completed",
    reason: "done",
    checks: [],
    commits: [],
    head_sha: "a".repeat(40),
    turns: 7,
    tokens: { input: 100, output: 200, cache_read: 300, cache_creation: 400 },
    cost_usd: 1.25,
    duration_ms: 60_000,
    context_percent: 40,
    deviations: [],
    permission_denials: [],
    ...fields,
  });
}

function makeCheck(fields: Record<string, unknown>): Record<string, unknown> {
  return { kind: "acceptance", name: "npm test", passed: true, duration_ms: 5, output_tail: "", ...fields };
}

function makeLearning(summary: string): Record<string, unknown> {
  return {
    category: "pattern",
    summary,
    detail: "A detail long enough to pass the schema's minimum.",
    tags: ["testing"],
    scope: "project",
    criteria_met: ["specific"],
    plan_id: "PLAN-demo",
    stage_id: "a",
    attempt: 1,
    recorded_at: "2026-01-01T00:00:00.000Z",
  };
}

test("a session's report carries its model, turns, tokens, cost and duration as the action recorded them", () => {
  const report = toSessionReport(makeResult({ model: "claude-sonnet-4" }));
  assert.deepEqual(report.usage, {
    model: "claude-sonnet-4",
    turns: 7,
    inputTokens: 100,
    outputTokens: 200,
    cacheReadTokens: 300,
    cacheCreationTokens: 400,
    costUsd: 1.25,
    durationMs: 60_000,
  });
  assert.equal("model" in toSessionReport(makeResult()).usage, false, "no model when the action named none");
  const long = toSessionReport(makeResult({ model: "m".repeat(150) })).usage.model ?? "";
  assert.equal(long, `${"m".repeat(99)}…`);
});

test("a passed check keeps its name, command, exit code and time but no output; a failed one keeps the end of its output and the places it names", () => {
  const report = toSessionReport(
    makeResult({
      checks: [
        makeCheck({ name: "lint", command: "npm run lint", exit_code: 0, output_tail: "all fine" }),
        makeCheck({
          kind: "wiring",
          name: "api wired",
          passed: false,
          duration_ms: 9,
          output_tail: "expected route /api",
          locations: [{ path: "src/api.ts", line: 3, column: 7 }],
        }),
        makeCheck({ name: "silent failure", passed: false, output_tail: "", locations: [] }),
      ],
    }),
  );
  assert.deepEqual(report.checks, [
    { kind: "acceptance", name: "lint", command: "npm run lint", passed: true, exitCode: 0, durationMs: 5 },
    {
      kind: "wiring",
      name: "api wired",
      passed: false,
      durationMs: 9,
      outputTail: "expected route /api",
      locations: [{ path: "src/api.ts", line: 3, column: 7 }],
    },
    { kind: "acceptance", name: "silent failure", passed: false, durationMs: 5 },
  ]);
});

test("a passed check's places are not kept either: only failures point at code", () => {
  const report = toSessionReport(
    makeResult({ checks: [makeCheck({ locations: [{ path: "src/a.ts", line: 1 }] })] }),
  );
  assert.equal(report.checks[0]?.locations, undefined);
});

test("a chatty session's report stays small: checks, deviations, names, commands, paths and outputs are cut", () => {
  const text = "x".repeat(REPORT_MAX_TEXT + 20);
  const report = toSessionReport(
    makeResult({
      checks: Array.from({ length: REPORT_MAX_CHECKS + 5 }, (_, i) =>
        makeCheck({
          name: i === 0 ? text : `check ${i}`,
          command: text,
          passed: false,
          output_tail: `${"o".repeat(REPORT_MAX_TAIL + 50)}END`,
          locations: [{ path: text, line: 1 }],
        }),
      ),
      deviations: Array.from({ length: REPORT_MAX_DEVIATIONS + 3 }, (_, i) => (i === 0 ? text : `d${i}`)),
    }),
  );
  const clipped = `${"x".repeat(REPORT_MAX_TEXT - 1)}…`;
  assert.equal(report.checks.length, REPORT_MAX_CHECKS);
  assert.equal(report.checks[0]?.name, clipped);
  assert.equal(report.checks[1]?.name, "check 1");
  assert.equal(report.checks[0]?.command, clipped);
  assert.equal(report.checks[0]?.locations?.[0]?.path, clipped);
  const tail = report.checks[0]?.outputTail ?? "";
  assert.equal(tail.length, REPORT_MAX_TAIL);
  assert.ok(tail.startsWith("…o") && tail.endsWith("oEND"), "the end of the output is kept");
  assert.deepEqual(report.deviations.slice(0, 2), [clipped, "d1"]);
  assert.equal(report.deviations.length, REPORT_MAX_DEVIATIONS);
});

test("texts exactly at their limits are kept whole", () => {
  const text = "y".repeat(REPORT_MAX_TEXT);
  const output = "z".repeat(REPORT_MAX_TAIL);
  const report = toSessionReport(
    makeResult({
      checks: [makeCheck({ name: text, passed: false, output_tail: output })],
      deviations: [text],
    }),
  );
  assert.equal(report.checks[0]?.name, text);
  assert.equal(report.checks[0]?.outputTail, output);
  assert.deepEqual(report.deviations, [text]);
});

test("the learnings a session added and those it was given are reported by summary; none leaves the fields out", () => {
  const report = toSessionReport(
    makeResult({
      learnings: {
        accepted: [makeLearning("Use the port, not a module mock"), makeLearning("Keys carry the blob SHA")],
        rejected: [{ line: 3, reason: "duplicate" }],
      },
      learnings_given: [{ id: "use-ports", summary: "Prefer ports" }],
    }),
  );
  assert.equal(report.learningsAdded, 2);
  assert.deepEqual(report.learningsAddedSummaries, [
    "Use the port, not a module mock",
    "Keys carry the blob SHA",
  ]);
  assert.deepEqual(report.learningsGiven, [{ id: "use-ports", summary: "Prefer ports" }]);

  const none = toSessionReport(
    makeResult({ learnings: { accepted: [], rejected: [] }, learnings_given: [] }),
  );
  assert.equal(none.learningsAdded, 0);
  assert.equal("learningsAddedSummaries" in none, false);
  assert.equal("learningsGiven" in none, false);
  const absent = toSessionReport(makeResult());
  assert.equal(absent.learningsAdded, 0);
  assert.equal("learningsAddedSummaries" in absent, false);
  assert.equal("learningsGiven" in absent, false);
});
