import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { splitEnv } from "../../action/src/main.ts";

const root = path.resolve(import.meta.dirname, "../..");

test("the session sees the model key but no runner token; checks see neither", () => {
  const { sessionEnv, checkEnv } = splitEnv(
    {
      PATH: "/usr/bin",
      HOME: "/home/runner",
      ANTHROPIC_API_KEY: "sk-ant-key",
      GITHUB_TOKEN: "ghs_token",
      INPUT_GITHUB_TOKEN: "ghs_token",
      ACTIONS_RUNTIME_TOKEN: "runtime",
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: "oidc",
      GITHUB_REPOSITORY: "o/r",
    },
    { ANTHROPIC_API_KEY: "sk-ant-key" },
  );
  assert.equal(sessionEnv.ANTHROPIC_API_KEY, "sk-ant-key");
  assert.equal(sessionEnv.PATH, "/usr/bin");
  assert.equal(sessionEnv.GITHUB_REPOSITORY, "o/r");
  assert.equal(sessionEnv.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, "1");
  for (const name of [
    "GITHUB_TOKEN",
    "INPUT_GITHUB_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
  ])
    assert.equal(name in sessionEnv, false, name);
  assert.equal("ANTHROPIC_API_KEY" in checkEnv, false);
  assert.equal(checkEnv.HOME, "/home/runner");
});

function runBundle(env: Record<string, string>, cwd: string) {
  return spawnSync(process.execPath, [path.join(root, "action/dist/main.js")], {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
}

test("the bundled action refuses an unknown mode with a clear error", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), "loom-main-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const run = runBundle({ INPUT_MODE: "deploy" }, dir);
  assert.equal(run.status, 1);
  assert.match(run.stdout, /::error::unknown mode "deploy": use "run" or "publish"/);
});

test("the bundled action fails cleanly, naming the input, when a required input is missing", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), "loom-main-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const run = runBundle({ INPUT_MODE: "run", RUNNER_TEMP: dir, GITHUB_WORKSPACE: dir }, dir);
  assert.equal(run.status, 1);
  assert.match(run.stdout, /::error::loom: invalid inputs:.*plan_path/s);
});
