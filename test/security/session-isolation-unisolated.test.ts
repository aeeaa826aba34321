import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import type { RepoConfigRead } from "../../action/src/config/read-repo-config.ts";
import { decideRunOutcome } from "../../app/github/decide-run-outcome.ts";
import { prepareIsolation, type IsolationHost } from "../../action/src/isolation/prepare-isolation.ts";
import { planSpawn } from "../../action/src/isolation/plan-spawn.ts";
import type { HostRun } from "../../action/src/isolation/run-host-command.ts";
import type { SessionSandbox } from "../../action/src/isolation/session-isolation.ts";
import { runStage } from "../../action/src/run-stage.ts";
import type { RunSessionOptions } from "../../action/src/session/run-session.ts";
import { StageResult } from "../../src/artifacts/stage-result.ts";
import { parseLoomConfig } from "../../src/config/loom-config.ts";
import { deps, finishedSession, inputs, makeFixture, readJson } from "../action/run-stage-fixture.ts";

/** A runner as a program sees it: `answers` by command line, every call recorded. */
function fakeHost(
  uid: number,
  answers: Record<string, HostRun | HostRun[]>,
): IsolationHost & { calls: string[] } {
  const calls: string[] = [];
  return {
    uid,
    calls,
    run: (command, args) => {
      const line = [command, ...args].join(" ");
      calls.push(line);
      const answer = answers[line];
      const next = Array.isArray(answer) ? (answer.length > 1 ? answer.shift() : answer[0]) : answer;
      return Promise.resolve(next ?? { code: 1, stdout: "", stderr: `${command}: not answered` });
    },
  };
}
const ok = (stdout = ""): HostRun => ({ code: 0, stdout, stderr: "" });
const ids = {
  "id -u loom-session": ok("999\n"),
  "id -g loom-session": ok("995\n"),
  "id -G loom-session": ok("995\n"),
};

test("a runner that is not root and has no passwordless sudo cannot isolate, and says why", async () => {
  const host = fakeHost(1001, {
    "sudo -n true": { code: 1, stdout: "", stderr: "sudo: a password is required\n" },
  });
  const isolation = await prepareIsolation(host, "loom-session");
  assert.equal(isolation.kind, "none");
  assert.match(
    isolation.kind === "none" ? isolation.reason : "",
    /uid 1001, not root, and has no passwordless sudo \(sudo -n true: sudo: a password is required\)/,
  );
  assert.deepEqual(host.calls, ["sudo -n true"], "nothing else is tried");
});

test("through passwordless sudo the missing session user is created with sudo and used", async () => {
  const missing = { code: 1, stdout: "", stderr: "id: 'loom-session': no such user" };
  const host = fakeHost(1001, {
    "sudo -n true": ok(),
    "id -u loom-session": [missing, ok("999\n")],
    "id -g loom-session": [missing, ok("995\n")],
    "id -G loom-session": [missing, ok("995\n")],
    "sudo -n useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /bin/bash loom-session":
      ok(),
  });
  assert.deepEqual(await prepareIsolation(host, "loom-session"), {
    kind: "user",
    user: "loom-session",
    uid: 999,
    gid: 995,
    via: "sudo",
    created: true,
  });
  assert.ok(host.calls.some((c) => c.startsWith("sudo -n useradd ")));
});

test("a session user that is root, the runner itself or in other groups is not isolation", async () => {
  const cases: [string, IsolationHost, RegExp][] = [
    ["root", fakeHost(0, { ...ids, "id -u loom-session": ok("0\n") }), /uid 0/],
    ["the runner", fakeHost(999, { "sudo -n true": ok(), ...ids }), /uid 999/],
    [
      "docker group",
      fakeHost(0, { ...ids, "id -G loom-session": ok("995 998\n") }),
      /other groups too \(998\)/,
    ],
  ];
  for (const [name, host, reason] of cases) {
    const isolation = await prepareIsolation(host, "loom-session");
    assert.equal(isolation.kind, "none", name);
    assert.match(isolation.kind === "none" ? isolation.reason : "", reason, name);
  }
});

test("through sudo the session's secrets stay off the command line (which every user can read)", () => {
  const sandbox: SessionSandbox = {
    isolation: { kind: "user", user: "loom-session", uid: 999, gid: 995, via: "sudo", created: false },
    home: "/tmp/run/session-home",
    privateDir: "/tmp/run/isolation",
    owner: { uid: 1001, gid: 1001 },
  };
  const plan = planSpawn(sandbox, "/usr/local/bin/claude", ["-p"], {
    PATH: "/usr/bin:/bin",
    HOME: "/home/runner",
    ANTHROPIC_API_KEY: "sk-ant-secret-value",
  });
  assert.equal(plan.command, "sudo");
  assert.ok(!plan.args.join(" ").includes("sk-ant-secret-value"));
  assert.deepEqual(plan.args.slice(0, 5), [
    "-n",
    "-u",
    "loom-session",
    "--preserve-env=ANTHROPIC_API_KEY,USER,LOGNAME",
    "--",
  ]);
  assert.deepEqual(plan.args.slice(5), [
    "/usr/bin/env",
    "PATH=/usr/bin:/bin",
    "HOME=/tmp/run/session-home",
    "/usr/local/bin/claude",
    "-p",
  ]);
  assert.equal(plan.env.ANTHROPIC_API_KEY, "sk-ant-secret-value");
  assert.equal(plan.env.HOME, "/tmp/run/session-home", "not the runner's home");
});

const unisolated: SessionSandbox = {
  isolation: { kind: "none", reason: "the action runs as uid 1001, not root, and has no passwordless sudo" },
  home: "/nonexistent/home",
  privateDir: "/nonexistent/private",
  owner: { uid: 1001, gid: 1001 },
};
const STAGE = `
- id: build
  name: Build
  acceptance: ["true"]
`;
function repoConfig(text: string | null): () => Promise<RepoConfigRead> {
  const parsed = parseLoomConfig(text);
  assert.ok(parsed.ok);
  return () => Promise.resolve({ ok: true, config: text === null ? null : parsed.config });
}

for (const [name, text] of [
  ["no .github/loom.yml", null],
  ["session.require_isolation: true", "session:\n  require_isolation: true\n"],
] as const)
  test(`without isolation and with ${name}, the stage does not start: the result and the job summary say why and how to allow it`, async (t) => {
    const f = await makeFixture(STAGE, t);
    let started = false;
    const run = await runStage(
      inputs(),
      deps(
        f,
        (o: RunSessionOptions) => {
          started = true;
          return finishedSession(o);
        },
        { sandbox: unisolated, readRepoConfig: repoConfig(text) },
      ),
    );
    assert.equal(started, false, "the session ran");
    assert.equal(run.result.outcome, "crashed");
    assert.match(
      run.result.reason,
      /cannot run the session as a separate user .*no passwordless sudo.*require_isolation: false/,
    );
    assert.deepEqual(run.result.checks, [], "no check ran");
    assert.deepEqual(run.result.isolation, {
      mode: "none",
      reason: unisolated.isolation.kind === "none" ? unisolated.isolation.reason : "",
    });
    const uploaded = StageResult.parse(
      await readJson(`${f.uploads.get("loom-result") ?? ""}/loom-result.json`),
    );
    assert.deepEqual(uploaded.isolation, run.result.isolation);
    assert.match(f.summaries.join("\n"), /Not isolated/);
  });

test("with session.require_isolation: false the stage runs as the runner's user and says so", async (t) => {
  const f = await makeFixture(STAGE, t);
  const run = await runStage(
    inputs(),
    deps(
      f,
      async (o) => {
        await writeFile(path.join(o.cwd, "work.txt"), "done\n");
        return finishedSession(o);
      },
      {
        sandbox: unisolated,
        readRepoConfig: repoConfig("session:\n  require_isolation: false\n"),
      },
    ),
  );
  assert.equal(run.result.outcome, "completed", run.result.reason);
  assert.equal(run.result.isolation?.mode, "none");
  assert.match(f.summaries.join("\n"), /Not isolated.*no passwordless sudo/);
});

test("require_isolation must be a boolean in .github/loom.yml", () => {
  assert.equal(parseLoomConfig("session:\n  require_isolation: maybe\n").ok, false);
  assert.equal(parseLoomConfig("session:\n  require_isolation: false\n").ok, true);
});

test("the App's stage detail (check run, status comment) says when a session ran without isolation", () => {
  const base: StageResult = {
    version: 1,
    plan_id: "PLAN-demo",
    stage_id: "build",
    attempt: 1,
    kind: "stage",
    session_id: "s-1",
    outcome: "completed",
    reason: "the session finished and every check passed",
    checks: [],
    commits: [],
    head_sha: "a".repeat(40),
    turns: 3,
    tokens: { input: 0, output: 0, cache_read: 0, cache_creation: 0 },
    cost_usd: 0,
    duration_ms: 1,
    context_percent: 1,
    deviations: [],
    permission_denials: [],
  };
  const decide = (result: StageResult): string =>
    decideRunOutcome({ status: "completed", conclusion: "success", result, publish: null, problems: [] })
      ?.detail ?? "";
  const reason = "the action runs as uid 1001, not root, and has no passwordless sudo";
  assert.match(
    decide({ ...base, isolation: { mode: "none", reason } }),
    /every check passed \(not isolated: the session and the checks ran as the runner's own user and could read its tokens; the action runs as uid 1001/,
  );
  assert.equal(decide({ ...base, isolation: { mode: "user", user: "loom-session" } }), base.reason);
  assert.equal(decide(base), base.reason, "a result from an older action");
});
