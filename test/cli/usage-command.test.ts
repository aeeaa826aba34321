import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { createSqliteStore } from "../../app/store/sqlite-store.ts";
import type { SessionReport } from "../../src/orchestrator/session-report.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { makeDiamond, makeReport, makeSession, T0 } from "../status/make-plan-state.ts";
import { planKey } from "../store/plan-key-fixture.ts";
import { runShell } from "./run-loom.ts";

const work = mkdtempSync(join(tmpdir(), "loom-usage-"));
after(() => rmSync(work, { recursive: true, force: true }));

function report(costUsd: number, turns: number, model?: string): SessionReport {
  return makeReport({ cost: costUsd, turns, ...(model === undefined ? {} : { model }) });
}

const REPO = {
  workflowFile: "loom.yml",
  labelPrefix: "loom",
  minimumRole: "write",
  branchCleanup: true,
  defaultBranch: "main",
};

async function seed(path: string): Promise<void> {
  const store = createSqliteStore({ path });
  await store.migrate();
  const done: PlanState = makeDiamond({
    a: {
      status: "completed",
      merged: true,
      attempt: 2,
      sessions: [
        makeSession({
          status: "crashed",
          runId: 11,
          finishedAt: T0 + 60_000,
          report: report(0.25, 4, "claude-sonnet-4-5"),
        }),
        makeSession({
          attempt: 2,
          kind: "recovery",
          status: "completed",
          runId: 12,
          finishedAt: T0 + 200_000,
          report: report(0.5, 9),
          rerunWhy: "retry requested by @octocat",
        }),
      ],
    },
    // Running, no report yet: not a line (nothing is estimated).
    b: { status: "executing", attempt: 1, sessions: [makeSession({ runId: 13 })] },
  });
  await store.commitPlan(planKey(1), {
    expectedVersion: 0,
    state: { format: 1, state: { ...done, closed: true }, repo: REPO },
    active: false,
    effects: [],
    timers: [],
  });
  const other = makeDiamond({
    a: {
      status: "executing",
      attempt: 1,
      sessions: [makeSession({ runId: 21, finishedAt: T0, report: report(1, 2) })],
    },
  });
  await store.commitPlan(planKey(2, { owner: "someone", repo: "else", pr: 3 }), {
    expectedVersion: 0,
    state: { format: 1, state: other, repo: REPO },
    active: true,
    effects: [],
    timers: [],
  });
  await store.close();
}

test("npx loom usage prints one JSON line per reported session from the App's store named in .env", async () => {
  const sqlite = join(work, "loom.sqlite");
  await seed(sqlite);
  const envFile = join(work, ".env");
  writeFileSync(envFile, `APP_ID=1\nLOOM_SQLITE_PATH=${sqlite}\n`);

  const { code, stdout, stderr } = runShell(`npx loom usage --repo octo/hello --env-file ${envFile}`);
  assert.equal(code, 0, stderr);
  const lines = stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.deepEqual(
    lines.map((l) => [
      l["repo"],
      l["pr"],
      l["stage"],
      l["attempt"],
      l["kind"],
      l["model"],
      l["run_id"],
      l["cost_usd"],
      l["turns"],
      l["rerun_why"],
    ]),
    [
      ["Octo/Hello", 12, "a", 1, "stage", "claude-sonnet-4-5", 11, 0.25, 4, null],
      ["Octo/Hello", 12, "a", 2, "recovery", null, 12, 0.5, 9, "retry requested by @octocat"],
    ],
    "the finished plan's sessions, in order; the running one without a report and the other repository are left out",
  );
  assert.equal(lines[0]?.["input_tokens"], 1200);
  assert.equal(lines[0]?.["cache_read_tokens"], 50_000);
  assert.equal(lines[0]?.["finished_at"], new Date(T0 + 60_000).toISOString());

  const all = runShell(`npx loom usage --env-file ${envFile}`);
  assert.equal(all.stdout.trimEnd().split("\n").length, 3, "without --repo, every repository's sessions");
  const none = runShell(`npx loom usage --repo octo/hello --pr 99 --env-file ${envFile}`);
  assert.equal(none.code, 0);
  assert.equal(none.stdout, "", "another pull request has no sessions");
});

test("npx loom usage without a store says where it looked and exits 1; bad arguments exit 2", () => {
  const envFile = join(work, "empty.env");
  writeFileSync(envFile, `LOOM_SQLITE_PATH=${join(work, "missing.sqlite")}\n`);
  const missing = runShell(`npx loom usage --env-file ${envFile}`);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no store at .*missing\.sqlite/);
  const bad = runShell(`npx loom usage --pr 3 --env-file ${envFile}`);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--pr needs --repo/);
});
