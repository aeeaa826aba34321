import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_SUMMARY_CHARS, renderJobSummary } from "../../action/src/upload/render-job-summary.ts";
import type { StageResult } from "../../src/artifacts/stage-result.ts";

const result: StageResult = {
  version: 1,
  plan_id: "PLAN-demo",
  stage_id: "build",
  attempt: 2,
  kind: "recovery",
  outcome: "completed-with-failures",
  reason: "1 of 2 checks failed, first: acceptance npm test",
  checks: [
    {
      kind: "acceptance",
      name: "npm test",
      command: "npm test",
      passed: false,
      exit_code: 1,
      duration_ms: 1500,
      output_tail: "```\nnot ok 1 | pipe",
    },
    { kind: "artifact", name: "src/a.ts", passed: true, duration_ms: 1, output_tail: "" },
  ],
  commits: [{ sha: "c".repeat(40), subject: "Add a | b" }],
  head_sha: "c".repeat(40),
  turns: 7,
  tokens: { input: 1, output: 1, cache_read: 0, cache_creation: 0 },
  cost_usd: 0.1234,
  duration_ms: 65_000,
  context_percent: 33.3,
  deviations: ["[DEVIATION Rule 1: renamed x]"],
  permission_denials: [],
};

test("the job summary shows the outcome, each check, the failing output and the commits", () => {
  const md = renderJobSummary(result);
  assert.match(md, /^## ❌ loom: `build` completed-with-failures\n/);
  assert.match(md, /\| ❌ \| npm test \| acceptance \| 1\.5 s \|/);
  assert.match(md, /\| ✅ \| src\/a\.ts \| artifact \|/);
  // The output keeps its own backticks inside a longer fence.
  assert.match(md, /````text\n```\nnot ok 1 \| pipe\n````/);
  assert.match(md, /- `cccccccccccc` Add a \\\| b/);
  assert.match(md, /\[DEVIATION Rule 1: renamed x\]/);
  assert.match(md, /7 turns, \$0\.1234, context 33\.3 %, 65 s/);
});

test("a huge summary is cut to stay under GitHub's limit", () => {
  const checks = Array.from({ length: 2000 }, (_, i) => ({
    ...result.checks[1]!,
    name: `${i} ${"x".repeat(300)}`,
  }));
  const md = renderJobSummary({ ...result, checks });
  assert.ok(md.length <= MAX_SUMMARY_CHARS + 20);
  assert.match(md, /… \(cut\)\n$/);
});

test("the job summary lists the learnings the session was given", () => {
  const md = renderJobSummary({
    ...result,
    learnings_given: [{ id: "2026-11-01-api-0a1b2c3d", summary: "Routes live in src/api | index" }],
  });
  assert.match(
    md,
    /### Learnings given\n\n- Routes live in src\/api \\\| index \(`2026-11-01-api-0a1b2c3d`\)/,
  );
});

test("a continue session's summary says whether it resumed the earlier session, or why it got a handoff prompt", () => {
  const resumed = renderJobSummary({
    ...result,
    kind: "continue",
    continued: { mode: "resumed", from_run_id: 41 },
  });
  assert.match(resumed, /Continued \(`\/loom continue`\): resumed Claude Code's session of run 41\./);
  const fresh = renderJobSummary({
    ...result,
    kind: "continue",
    continued: { mode: "handoff", from_run_id: 41, reason: "run 41 left no loom-session" },
  });
  assert.match(
    fresh,
    /Continued \(`\/loom continue`\) from run 41 with a handoff prompt: run 41 left no loom-session\./,
  );
});

test("the job summary lists what the network sandbox allowed and every host it blocked, with the command", () => {
  const md = renderJobSummary({
    ...result,
    network: {
      mode: "limited",
      allow: ["github.com", "api.anthropic.com"],
      notes: [],
      blocked: [
        {
          host: "evil.example",
          port: 443,
          at: "2026-01-01T00:00:00.000Z",
          count: 2,
          command: "curl `x` https://evil.example",
        },
      ],
      more_blocked: 1,
    },
  });
  assert.match(md, /could reach only `github\.com`, `api\.anthropic\.com`\./);
  assert.match(
    md,
    /- Blocked by the sandbox: `evil\.example:443` \(2 times\), by `curl 'x' https:\/\/evil\.example`/,
  );
  assert.match(md, /- and 1 more hosts/);
  const advisory = renderJobSummary({
    ...result,
    network: {
      mode: "advisory",
      allow: ["github.com"],
      reason: "not enforced: no iptables",
      notes: [],
      blocked: [],
      more_blocked: 0,
    },
  });
  assert.match(advisory, /⚠️ \*\*Network sandbox not enforced\*\* \(not enforced: no iptables\)/);
});

test("the job summary shows a check passed with a warning as ⚠️, with its output", () => {
  const md = renderJobSummary({
    ...result,
    checks: [
      {
        kind: "change_impact",
        name: "npm test",
        command: "npm test",
        passed: true,
        warned: true,
        duration_ms: 2000,
        output_tail: "1 new failure line(s) since the baseline (policy: warn)",
      },
    ],
  });
  assert.match(md, /\| ⚠️ \| npm test \| change_impact \| 2\.0 s \|/);
  assert.match(md, /<details><summary>⚠️ npm test<\/summary>\n\n```text\n1 new failure line\(s\)/);
});

test("the job summary names a disputed criterion with the session's reason, and says a check run ran no session", () => {
  const disputed = renderJobSummary({
    ...result,
    outcome: "completed-with-failures",
    dispute: { criterion_index: 1, criterion: "./lint `x`", reason: "no such tool | here" },
  });
  assert.match(
    disputed,
    /The session disputes acceptance criterion 2\*\* \(`\.\/lint 'x'`\): no such tool \\\| here\. The stage waits for a person/,
  );
  assert.match(
    renderJobSummary({ ...result, kind: "check" }),
    /A check run \(`\/loom amend`\): no session ran/,
  );
});
