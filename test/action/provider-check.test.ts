import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";

const MAIN = pathToFileURL(path.resolve(import.meta.dirname, "../../action/src/main.ts")).href;
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs the action's entry (unbundled) the way the runner does: inputs as INPUT_* variables. */
function runAction(inputs: Record<string, string>, env: Record<string, string> = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "loom-provider-"));
  dirs.push(dir);
  // A stand-in for Claude Code that leaves a mark if anything ever starts it.
  const marker = path.join(dir, "claude-started");
  const claude = path.join(dir, "claude");
  writeFileSync(claude, `#!/bin/sh\ntouch ${JSON.stringify(marker)}\n`, { mode: 0o755 });
  const inputEnv = Object.fromEntries(
    Object.entries({ claude_path: claude, ...inputs }).map(([name, value]) => [
      `INPUT_${name.toUpperCase()}`,
      value,
    ]),
  );
  const run = spawnSync(
    process.execPath,
    ["--input-type=module", "-e", `const { main } = await import(${JSON.stringify(MAIN)}); await main();`],
    {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", RUNNER_TEMP: dir, GITHUB_WORKSPACE: dir, ...inputEnv, ...env },
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  return { ...run, claudeStarted: existsSync(marker) };
}

const STAGE = {
  mode: "run",
  plan_path: "doc/plans/PLAN-x.md",
  plan_id: "PLAN-x",
  stage_id: "a",
  attempt: "1",
  branch: "loom/pr-7/PLAN-x/a",
};

describe("run mode refuses to start a session that cannot reach the model", () => {
  it("no ANTHROPIC_API_KEY: a job error naming the secret, and Claude Code never starts", () => {
    const run = runAction(STAGE, { ANTHROPIC_API_KEY: "" });
    assert.equal(run.status, 1, run.stderr);
    assert.match(
      run.stdout,
      /::error::loom: the session cannot reach the model:.*needs the secret ANTHROPIC_API_KEY/,
    );
    assert.equal(run.claudeStarted, false);
  });

  it("provider oauth with only an API key: names CLAUDE_CODE_OAUTH_TOKEN", () => {
    const run = runAction({ ...STAGE, provider: "oauth" }, { ANTHROPIC_API_KEY: "sk-ant-x" });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /::error::.*needs the secret CLAUDE_CODE_OAUTH_TOKEN/);
    assert.equal(run.claudeStarted, false);
  });

  it("provider bedrock without region or AWS login: names aws-region and the OIDC workflow", () => {
    const run = runAction({ ...STAGE, provider: "bedrock" });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /workflow input aws-region/);
    assert.match(run.stdout, /loom-stage-oidc\.yml/);
    assert.equal(run.claudeStarted, false);
  });

  it("an unknown provider is an input error naming the input", () => {
    const run = runAction({ ...STAGE, provider: "openai" }, { ANTHROPIC_API_KEY: "sk-ant-x" });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /::error::loom: invalid inputs:.*provider/s);
  });
});

describe("preflight mode (loom-stage-oidc.yml, before the cloud login)", () => {
  it("fails naming each missing workflow input", () => {
    const run = runAction({ mode: "preflight", provider: "bedrock", aws_region: "us-east-1" });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /::error::loom: provider "bedrock" needs the workflow input aws-role-arn/);
  });

  it("passes a complete vertex configuration", () => {
    const run = runAction({
      mode: "preflight",
      provider: "vertex",
      gcp_workload_identity_provider: "projects/1/locations/global/workloadIdentityPools/p/providers/g",
      gcp_service_account: "loom@p.iam.gserviceaccount.com",
      gcp_region: "us-east5",
    });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /provider vertex is configured/);
  });
});
