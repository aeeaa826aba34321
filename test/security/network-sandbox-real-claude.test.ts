import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import http from "node:http";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import {
  createSessionSandbox,
  disposeSessionSandbox,
} from "../../action/src/isolation/create-session-sandbox.ts";
import { runStage } from "../../action/src/run-stage.ts";
import { RunStageInputs } from "../../action/src/run-stage-inputs.ts";
import { createNetworkLimiter } from "../../action/src/sandbox/create-network-limiter.ts";
import { egressChainName } from "../../action/src/sandbox/egress-rule.ts";
import { runSession } from "../../action/src/session/run-session.ts";
import { planText } from "../action/run-stage-fixture.ts";
import { startFakeModelServer, type FakeTurn } from "../support/fake-model-server.ts";
import { CLAUDE_PATH, createSandbox, HOOKS_DIR } from "../support/fake-model-sandbox.ts";
import { egressRuleSkip } from "../support/egress-rule-skip.ts";

const PLAN_PATH = "doc/plans/PLAN-demo.md";

const skip = egressRuleSkip("network-sandbox-real-claude.test.ts");

const rules = (): string =>
  ["iptables", "ip6tables"]
    .map((program) => execFileSync(program, ["-w", "10", "-S"], { encoding: "utf8" }))
    .join("");

test(
  "with the real Claude Code in a network sandbox: an allowed host answers, a host outside the allowlist is refused and named in loom-result, and no rule is left",
  { timeout: 150_000, skip },
  async (t) => {
    const box = createSandbox();
    t.after(() => box.cleanup());
    // Two loopback servers, told apart only by the host name the session asks for.
    const server = http.createServer((request, response) =>
      response.end(`hello from ${request.headers.host}\n`),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => server.close());
    const port = (server.address() as { port: number }).port;
    const stage = `
- id: build
  name: Fetch
  description: Fetch the greeting from the allowed host
  sandbox:
    network:
      allowed_domains: [allowed.localhost]
  acceptance:
    - "grep 'hello from allowed.localhost' allowed.txt"
    - "! curl -sS -f -m 5 http://denied.localhost:${port}/"
`;
    await mkdir(path.join(box.repo, "doc/plans"), { recursive: true });
    await writeFile(path.join(box.repo, PLAN_PATH), planText(stage));
    box.git("add", PLAN_PATH);
    box.git("commit", "-q", "-m", "plan");
    const bash = (command: string): FakeTurn => ({
      blocks: [{ type: "tool_use", name: "Bash", input: { command } }],
    });
    const model = await startFakeModelServer({
      turns: [
        bash(`curl -sS -f -m 5 http://allowed.localhost:${port}/ > allowed.txt; echo allowed=$?`),
        bash(`curl -sS -f -m 5 http://denied.localhost:${port}/ > denied.txt 2> denied.err; echo denied=$?`),
        // Around the proxy, straight to the address: the egress rule refuses it.
        bash(
          `curl -sS -m 5 --noproxy '*' http://127.0.0.1:${port}/ > direct.txt 2> direct.err; echo direct=$? >> direct.err`,
        ),
        { blocks: [{ type: "text", text: "Done." }] },
      ],
    });
    t.after(() => model.close());
    const tempDir = path.join(box.dir, "tmp");
    const sandbox = await createSessionSandbox(tempDir, box.dir);
    assert.equal(sandbox.isolation.kind, "user");
    const chain = sandbox.isolation.kind === "user" ? egressChainName(sandbox.isolation.user) : "";
    const logs: string[] = [];
    const log = (message: string, data?: Record<string, unknown>): void => {
      logs.push(`${message} ${JSON.stringify(data ?? {})}`);
    };
    const limiter = createNetworkLimiter(sandbox, { now: Date.now, log });
    let ruleDuringRun = "";
    const { result } = await runStage(
      RunStageInputs.parse({
        plan_path: PLAN_PATH,
        plan_id: "PLAN-demo",
        stage_id: "build",
        attempt: "1",
        branch: "main",
        silence_timeout_minutes: "1",
        check_timeout_minutes: "1",
        allowed_tools: "Read,Write,Edit,Bash",
        claude_path: CLAUDE_PATH,
      }),
      {
        workspace: box.repo,
        tempDir,
        sessionEnv: box.claudeEnv(model.url),
        checkEnv: { PATH: process.env.PATH },
        knownSecrets: [],
        hooks: { dir: HOOKS_DIR, extension: "ts", nodePath: process.execPath },
        sandbox,
        runSession,
        limitNetwork: limiter.limit,
        uploadArtifact: () => {
          ruleDuringRun ||= rules();
          return Promise.resolve();
        },
        loadPrevious: () => Promise.resolve({ notes: [] }),
        writeSummary: () => Promise.resolve(),
        log,
        now: Date.now,
      },
    ).finally(async () => {
      assert.deepEqual(await disposeSessionSandbox(sandbox), []);
      assert.deepEqual(await limiter.stop(), []);
    });
    assert.match(ruleDuringRun, new RegExp(`-j ${chain}`), "the rule was in place while the stage ran");
    assert.equal(result.outcome, "completed", `${result.reason}\n${logs.join("\n")}`);
    assert.deepEqual(
      result.checks.map((c) => [c.name, c.passed]),
      [
        ["grep 'hello from allowed.localhost' allowed.txt", true],
        [`! curl -sS -f -m 5 http://denied.localhost:${port}/`, true],
      ],
    );
    const show = (file: string): string => box.git("show", `HEAD:${file}`);
    assert.match(show("denied.err"), /403/);
    assert.match(show("direct.err"), /direct=7/);
    assert.equal(show("direct.txt"), "");
    assert.equal(result.network?.mode, "limited");
    assert.deepEqual(result.network?.allow, ["allowed.localhost", `127.0.0.1:${new URL(model.url).port}`]);
    const blocked = result.network?.blocked ?? [];
    assert.deepEqual(
      blocked.map((b) => [b.host, b.port]),
      [["denied.localhost", port]],
    );
    assert.match(blocked[0]?.command ?? "", /^curl .*denied\.localhost/);
    assert.equal(blocked[0]?.count, 2, "the session's curl and the check's");
    const left = rules();
    assert.ok(!left.includes(chain), left);
  },
);
