import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import type { FakeTurn } from "../support/fake-model-server.ts";
import type { PullRecord } from "./e2e-requests.ts";
import { startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages } from "./model-script.ts";
import { egressRuleSkip } from "../support/egress-rule-skip.ts";

const PLAN_PATH = "doc/plans/PLAN-net.md";

const skip = egressRuleSkip("network-sandbox.test.ts");

/** loom's egress chains on this machine now. */
const listChains = (): string[] =>
  ["iptables", "ip6tables"].flatMap((program) =>
    [
      ...spawnSync(program, ["-w", "10", "-S"], { encoding: "utf8" }).stdout.matchAll(
        /^-N (loom-egress-\S+)/gm,
      ),
    ].map((m) => `${program} ${m[1]}`),
  );

/**
 * A plan's `sandbox` through the real app, workflow, action and Claude Code: the session's command
 * reaches the allowed host, a host outside the allowlist is refused, the stage's check run names
 * it, and the runner is left without loom's rule. Both hosts are one loopback server, told apart
 * by name only.
 */
describe(
  "a stage in a network sandbox reaches only its allowlist, and its check run names what was blocked",
  { timeout: 200_000, skip },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let server: http.Server;
    let port = 0;
    let chainsBefore: string[] = [];
    before(async () => {
      chainsBefore = listChains();
      server = http.createServer((request, response) => response.end(`hello from ${request.headers.host}\n`));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as { port: number }).port;
      const bash = (command: string): FakeTurn => ({
        blocks: [{ type: "tool_use", name: "Bash", input: { command } }],
      });
      e2e = await startE2E({
        script: scriptStages({
          fetch: () => [
            bash(`curl -sS -f -m 5 http://allowed.localhost:${port}/ > allowed.txt`),
            bash(`curl -sS -f -m 5 http://denied.localhost:${port}/ > denied.txt || echo refused`),
            { blocks: [{ type: "text", text: "Done." }] },
          ],
        }),
      });
      const plan = planText(
        "Net",
        `
- id: fetch
  name: Fetch
  description: Fetch the greeting
  sandbox:
    network:
      allowed_domains: [allowed.localhost]
  acceptance: ["grep -q 'hello from allowed.localhost' allowed.txt", "test ! -s denied.txt"]
`,
      );
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: plan } });
      await e2e.waitForPlanEnd(pull, "PLAN-net", 1);
    });
    after(async () => {
      await e2e?.close();
      await new Promise((resolve) => server?.close(resolve));
    });

    it("passes with the allowed host's answer on the branch", async () => {
      const stage = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: fetch");
      assert.equal(stage?.conclusion, "success", e2e.describe());
      assert.equal(await e2e.readFile(pull.headRef, "allowed.txt"), `hello from allowed.localhost:${port}\n`);
    });

    it("names the blocked host and the command on the stage's check run", async () => {
      const stage = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: fetch");
      const summary = stage?.output.summary ?? "";
      assert.match(summary, /### Network sandbox: 1 blocked/);
      assert.match(
        summary,
        new RegExp(
          `- Blocked by the sandbox: \`denied\\.localhost:${port}\`, by \`curl -sS -f -m 5 http://denied\\.localhost:${port}/\``,
        ),
      );
      assert.match(summary, /could reach only `allowed\.localhost`, `127\.0\.0\.1:\d+`/);
    });

    it("leaves no loom rule on the runner", async () => {
      // Another test file's session may hold a rule of its own for a moment: only new chains that stay count.
      const gone = await e2e.waitFor(
        "loom's new chains to be gone",
        () => listChains().every((chain) => chainsBefore.includes(chain)),
        20_000,
      );
      assert.equal(gone, true);
    });
  },
);
