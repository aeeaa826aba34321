import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { splitEnv } from "../../action/src/main.ts";
import { runStage } from "../../action/src/run-stage.ts";
import { RunStageInputs } from "../../action/src/run-stage-inputs.ts";
import { ProviderInputs, resolveProviderEnv } from "../../action/src/session/provider-env.ts";
import { startFakeModelServer, type RecordedRequest } from "../support/fake-model-server.ts";
import { CLAUDE_PATH, createSandbox } from "../support/fake-model-sandbox.ts";
import { planText } from "./run-stage-fixture.ts";
import { sandboxDeps } from "./sandbox-deps.ts";

const PLAN_PATH = "doc/plans/PLAN-demo.md";
const API_KEY = "sk-ant-api03-test-not-a-key";
const OAUTH_TOKEN = "sk-ant-oat01-test-not-a-token";
// The checks run without any model credential: this acceptance fails if one leaks into them.
const STAGE = `
- id: build
  name: Build the greeter
  description: Write greet.txt saying hello
  acceptance:
    - "grep hello greet.txt"
    - 'test -z "$ANTHROPIC_API_KEY$CLAUDE_CODE_OAUTH_TOKEN"'
`;

/**
 * One stage with the real Claude Code against the scripted model. The runner's step environment
 * holds BOTH an API key and an OAuth token; the provider input decides which one Claude Code gets,
 * exactly as the action's run mode builds the environments.
 */
async function runWithProvider(provider: "anthropic" | "oauth") {
  const box = createSandbox();
  await mkdir(path.join(box.repo, "doc/plans"), { recursive: true });
  await writeFile(path.join(box.repo, PLAN_PATH), planText(STAGE));
  box.git("add", PLAN_PATH);
  box.git("commit", "-q", "-m", "plan");
  const server = await startFakeModelServer({
    turns: [
      {
        blocks: [
          {
            type: "tool_use",
            name: "Write",
            input: { file_path: path.join(box.repo, "greet.txt"), content: "hello\n" },
          },
        ],
      },
      { blocks: [{ type: "text", text: "Done." }] },
    ],
  });
  const { ANTHROPIC_API_KEY: _sandboxKey, ...base } = box.claudeEnv(server.url);
  const runnerEnv = { ...base, ANTHROPIC_API_KEY: API_KEY, CLAUDE_CODE_OAUTH_TOKEN: OAUTH_TOKEN };
  const resolved = resolveProviderEnv(ProviderInputs.parse({ provider }), runnerEnv, existsSync);
  assert.ok(resolved.ok);
  const { sessionEnv, checkEnv } = splitEnv(runnerEnv, resolved.env);
  const deps = sandboxDeps(box, server.url, {
    sessionEnv,
    checkEnv,
    knownSecrets: [API_KEY, OAUTH_TOKEN],
    uploadArtifact: () => Promise.resolve(),
  });
  const inputs = RunStageInputs.parse({
    plan_path: PLAN_PATH,
    plan_id: "PLAN-demo",
    stage_id: "build",
    attempt: "1",
    branch: "main",
    silence_timeout_minutes: "1",
    check_timeout_minutes: "1",
    allowed_tools: "Read,Write,Edit",
    claude_path: CLAUDE_PATH,
  });
  try {
    const { result } = await runStage(inputs, deps);
    const main = server.requests.filter((r: RecordedRequest) => r.kind === "main");
    return { result, main, box };
  } finally {
    await server.close();
  }
}

test(
  "with the real Claude Code, provider oauth: the OAuth token reaches the model as a bearer token, the API key does not",
  { timeout: 110_000 },
  async (t) => {
    const { result, main, box } = await runWithProvider("oauth");
    t.after(() => box.cleanup());
    assert.equal(result.outcome, "completed", result.reason);
    assert.deepEqual(
      result.checks.map((c) => c.passed),
      [true, true],
      "the checks saw no credential",
    );
    assert.ok(main.length >= 2);
    for (const request of main) {
      // Claude Code 2.1.197 sends an OAuth token as `Authorization: Bearer` with the
      // `oauth-2025-04-20` beta, also to a custom ANTHROPIC_BASE_URL, and no x-api-key.
      assert.equal(request.headers.authorization, `Bearer ${OAUTH_TOKEN}`);
      assert.equal(request.headers["x-api-key"], undefined);
      assert.match(String(request.headers["anthropic-beta"]), /oauth-2025-04-20/);
    }
  },
);

test(
  "with the real Claude Code, provider anthropic: the API key reaches the model as x-api-key, the OAuth token does not",
  { timeout: 110_000 },
  async (t) => {
    const { result, main, box } = await runWithProvider("anthropic");
    t.after(() => box.cleanup());
    assert.equal(result.outcome, "completed", result.reason);
    assert.ok(main.length >= 2);
    for (const request of main) {
      assert.equal(request.headers["x-api-key"], API_KEY);
      assert.equal(request.headers.authorization, undefined);
      assert.doesNotMatch(String(request.headers["anthropic-beta"]), /oauth/);
    }
  },
);
