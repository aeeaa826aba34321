import assert from "node:assert/strict";
import { test } from "node:test";
import { StageResult } from "../../src/artifacts/stage-result.ts";
import { toSessionReport } from "../../src/orchestrator/session-report.ts";
import { renderStageCheckRun } from "../../src/status/render-stage-check-run.ts";
import { makeDiamond, makeSession, T0 } from "./make-plan-state.ts";

const result = (network: unknown): StageResult =>
  StageResult.parse({
    version: 1,
    plan_id: "PLAN-demo",
    stage_id: "a",
    attempt: 1,
    kind: "stage",
    outcome: "completed-with-failures",
    reason: "acceptance failed",
    checks: [],
    commits: [],
    head_sha: "b".repeat(40),
    turns: 3,
    tokens: { input: 1, output: 1, cache_read: 0, cache_creation: 0 },
    cost_usd: 0.1,
    duration_ms: 1000,
    context_percent: 5,
    deviations: [],
    permission_denials: [],
    network,
  });

const stateWith = (network: unknown) =>
  makeDiamond({
    a: {
      status: "completed-with-failures",
      attempt: 1,
      sessions: [
        makeSession({
          status: "completed",
          finishedAt: T0 + 60_000,
          report: toSessionReport(result(network)),
        }),
      ],
    },
  });

test("a stage's check run names every host the network sandbox blocked, how often and by which command", () => {
  const summary = renderStageCheckRun(
    stateWith({
      mode: "limited",
      allow: ["registry.npmjs.org", "api.anthropic.com"],
      notes: [
        "`evil.example` is not allowed: .github/loom.yml's `session.network.allow` does not include it",
      ],
      blocked: [
        {
          host: "evil.example",
          port: 443,
          at: "2026-11-21T12:00:30.000Z",
          count: 3,
          command: "curl -sS https://evil.example/x",
        },
        { host: "pypi.org", port: 443, at: "2026-11-21T12:00:40.000Z", count: 1 },
      ],
      more_blocked: 2,
    }),
    "a",
  ).summary;
  assert.match(summary, /### Network sandbox: 4 blocked/);
  assert.match(summary, /could reach only `registry\.npmjs\.org`, `api\.anthropic\.com`/);
  assert.match(
    summary,
    /- Blocked by the sandbox: `evil\.example:443` \(3 times\), by `curl -sS https:\/\/evil\.example\/x`/,
  );
  assert.match(summary, /- Blocked by the sandbox: `pypi\.org:443`\n/);
  assert.match(summary, /- and 2 more hosts/);
  assert.match(summary, /'evil\.example' is not allowed/);
});

test("a limited session that was refused nothing shows its allowlist; an advisory one says why it was not enforced", () => {
  const quiet = renderStageCheckRun(
    stateWith({ mode: "limited", allow: ["github.com"], notes: [], blocked: [], more_blocked: 0 }),
    "a",
  ).summary;
  assert.match(
    quiet,
    /### Network sandbox\n\nAttempt 1: the session and its checks could reach only `github\.com`\./,
  );
  assert.doesNotMatch(quiet, /Blocked/);
  const advisory = renderStageCheckRun(
    stateWith({
      mode: "advisory",
      allow: ["github.com"],
      reason: "not enforced: no iptables",
      notes: [],
      blocked: [],
      more_blocked: 0,
    }),
    "a",
  ).summary;
  assert.match(
    advisory,
    /Not enforced on this runner \(`session\.sandbox: advisory`\): not enforced: no iptables/,
  );
  const open = renderStageCheckRun(stateWith(undefined), "a").summary;
  assert.doesNotMatch(open, /Network sandbox/);
});
