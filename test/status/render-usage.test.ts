import assert from "node:assert/strict";
import { test } from "node:test";
import type { StageResult } from "../../src/artifacts/stage-result.ts";
import { REPORT_MAX_TAIL, toSessionReport } from "../../src/orchestrator/session-report.ts";
import { renderPlanCheckRun } from "../../src/status/render-plan-check-run.ts";
import { renderStageCheckRun } from "../../src/status/render-stage-check-run.ts";
import { renderStatusComment } from "../../src/status/render-status-comment.ts";
import { formatTokens, formatUsd } from "../../src/status/render-usage.ts";
import { makeDiamond, makeReport as report, makeSession, T0 } from "./make-plan-state.ts";

const crashedThenDone = makeDiamond({
  a: {
    status: "completed",
    merged: true,
    attempt: 2,
    sessions: [
      makeSession({
        status: "crashed",
        finishedAt: T0 + 60_000,
        report: report({ cost: 0.25, turns: 4, model: "claude-sonnet-4-5" }),
      }),
      makeSession({
        attempt: 2,
        kind: "recovery",
        status: "completed",
        finishedAt: T0 + 200_000,
        report: report({
          cost: 0.5,
          turns: 9,
          checks: [
            {
              kind: "acceptance",
              name: "npm test",
              command: "npm test",
              passed: true,
              exitCode: 0,
              durationMs: 4000,
            },
            {
              kind: "acceptance",
              name: "npm run lint",
              command: "npm run lint",
              passed: false,
              exitCode: 2,
              durationMs: 1500,
              outputTail: "src/a.ts:3:7 error no-unused-vars\n``` closing fence attempt\n<b>@octocat</b>",
            },
          ],
          deviations: ["[DEVIATION Rule 2: used fetch instead of axios]"],
          learningsAdded: 2,
        }),
      }),
    ],
  },
  b: { status: "executing", attempt: 1, sessions: [makeSession({ report: undefined })] },
});

test("a stage's check run shows each session's tokens, turns and cost, and the sum over its retries", () => {
  const summary = renderStageCheckRun(crashedThenDone, "a").summary;
  assert.match(summary, /\*\*Cost:\*\* \$0\.75 · 125\.2k tokens · 13 turns · 3m 10s of sessions/);
  assert.match(
    summary,
    /\| Attempt \| Kind \| Model \| Turns \| Input \| Output \| Cache read \| Cache write \| Cost \| Session time \|/,
  );
  assert.match(
    summary,
    /\| 1 \| stage \| `claude-sonnet-4-5` \| 4 \| 1\.20k \| 3\.40k \| 50\.0k \| 8\.00k \| \$0\.25 \| 1m 35s \|/,
  );
  assert.match(
    summary,
    /\| 2 \| recovery \| — \| 9 \| 1\.20k \| 3\.40k \| 50\.0k \| 8\.00k \| \$0\.50 \| 1m 35s \|/,
  );
  assert.match(summary, /\| \*\*all\*\* \| \| \| 13 \| .* \| \*\*\$0\.75\*\* \| 3m 10s \|/);
});

test("a stage's check run lists every check with pass or fail, command, exit code and time, and the failure's output tail", () => {
  const summary = renderStageCheckRun(crashedThenDone, "a").summary;
  assert.match(summary, /### Checks \(attempt 2: 1 passed, 1 failed\)/);
  assert.match(summary, /\| ✅ \| acceptance \| npm test \| 0 \| 4s \|/);
  assert.match(summary, /\| ❌ \| acceptance \| npm run lint \| 2 \| 1s \|/);
  assert.match(summary, /<summary>❌ npm run lint<\/summary>/);
  // The output cannot close its code block: the fence is longer than any backtick run in it.
  assert.match(
    summary,
    /````text\nsrc\/a\.ts:3:7 error no-unused-vars\n``` closing fence attempt\n<b>@octocat<\/b>\n````/,
  );
});

test("a stage's check run lists the deviations its sessions declared and counts the learnings they added", () => {
  const summary = renderStageCheckRun(crashedThenDone, "a").summary;
  assert.match(
    summary,
    /### Deviations \(1\)\n\n- attempt 2: \[DEVIATION Rule 2: used fetch instead of axios\]/,
  );
  // A state stored by an older app kept only the count of the learnings added.
  assert.match(summary, /### Learnings added \(1\)\n\n- attempt 2: 2 learning\(s\)/);
});

test("the plan check run and the status comment show the plan's spend and each stage's share", () => {
  for (const body of [renderPlanCheckRun(crashedThenDone).summary, renderStatusComment(crashedThenDone)]) {
    assert.match(body, /\*\*Spent:\*\* \$0\.75 · 125\.2k tokens · 13 turns · 3m 10s of sessions/);
    assert.match(body, /\| `a` \| ✅ completed, merged \| 2 \(recovery\) \| [^|]+ \| \$0\.75 \|/);
  }
});

test("a plan no session reported on yet shows no spend line", () => {
  const fresh = makeDiamond({});
  assert.doesNotMatch(renderStatusComment(fresh), /Spent/);
  assert.doesNotMatch(renderStageCheckRun(fresh, "a").summary, /### Cost|### Checks/);
});

test("formats money and token counts as people read them", () => {
  assert.equal(formatUsd(0), "$0.00");
  assert.equal(formatUsd(0.004), "$0.004");
  assert.equal(formatUsd(12.345), "$12.35");
  assert.equal(formatTokens(950), "950");
  assert.equal(formatTokens(1234), "1.23k");
  assert.equal(formatTokens(123_456), "123.5k");
  assert.equal(formatTokens(4_560_000), "4.56M");
});

test("a session's report keeps the end of a long failing output and no output of passing checks", () => {
  const long = `${"x".repeat(10_000)}THE END`;
  const result: StageResult = {
    version: 1,
    plan_id: "PLAN-demo",
    stage_id: "a",
    attempt: 1,
    kind: "stage",
    outcome: "completed-with-failures",
    reason: "1 of 2 checks failed",
    checks: [
      {
        kind: "acceptance",
        name: "ok",
        command: "true",
        passed: true,
        exit_code: 0,
        duration_ms: 5,
        output_tail: "fine",
      },
      {
        kind: "acceptance",
        name: "bad",
        command: "false",
        passed: false,
        exit_code: 1,
        duration_ms: 5,
        output_tail: long,
      },
    ],
    commits: [],
    head_sha: "a".repeat(40),
    turns: 2,
    tokens: { input: 10, output: 20, cache_read: 30, cache_creation: 40 },
    cost_usd: 0.02,
    duration_ms: 1000,
    context_percent: 5,
    deviations: [],
    permission_denials: [],
  };
  const { checks, usage } = toSessionReport(result);
  assert.equal(checks[0]?.outputTail, undefined);
  assert.ok(checks[1]?.outputTail?.endsWith("THE END"));
  assert.equal(checks[1]?.outputTail?.length, REPORT_MAX_TAIL);
  assert.deepEqual(usage, {
    turns: 2,
    inputTokens: 10,
    outputTokens: 20,
    cacheReadTokens: 30,
    cacheCreationTokens: 40,
    costUsd: 0.02,
    durationMs: 1000,
  });
});

test("a warned check shows ⚠️ with its output, and a review dimension's findings show though it passed", () => {
  const base: StageResult = {
    version: 1,
    plan_id: "PLAN-demo",
    stage_id: "a",
    attempt: 1,
    kind: "stage",
    outcome: "completed",
    reason: "all pass",
    checks: [
      {
        kind: "code_review",
        name: "security",
        passed: true,
        duration_ms: 0,
        output_tail: "No shell reached.",
      },
      {
        kind: "change_impact",
        name: "npm test",
        command: "npm test",
        passed: true,
        warned: true,
        exit_code: 1,
        duration_ms: 5,
        output_tail: '1 new failure line(s) since the baseline (policy: warn), first matching "FAIL": FAIL x',
      },
      { kind: "acceptance", name: "ok", command: "true", passed: true, duration_ms: 5, output_tail: "fine" },
    ],
    commits: [],
    head_sha: "a".repeat(40),
    turns: 2,
    tokens: { input: 10, output: 20, cache_read: 30, cache_creation: 40 },
    cost_usd: 0.02,
    duration_ms: 1000,
    context_percent: 5,
    deviations: [],
    permission_denials: [],
  };
  const { checks } = toSessionReport(base);
  assert.deepEqual(
    checks.map((c) => [c.kind, c.warned ?? false, c.outputTail ?? null]),
    [
      ["code_review", false, "No shell reached."],
      ["change_impact", true, base.checks[1]?.output_tail],
      ["acceptance", false, null],
    ],
  );
  const state = makeDiamond({
    a: {
      status: "completed",
      merged: true,
      attempt: 1,
      sessions: [makeSession({ status: "completed", report: report({ checks }) })],
    },
  });
  const summary = renderStageCheckRun(state, "a").summary;
  assert.match(summary, /### Checks \(attempt 1: 3 passed, 0 failed, 1 with warnings\)/);
  assert.match(summary, /\| ⚠️ \| change_impact \| npm test \| 1 \|/);
  assert.match(
    summary,
    /<details><summary>✅ review: security<\/summary>\n\n```text\nNo shell reached\.\n```/,
  );
  assert.match(summary, /<details><summary>⚠️ npm test<\/summary>/);
});
