import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import http from "node:http";
import { test } from "node:test";
import { runHostCommand } from "../../action/src/isolation/run-host-command.ts";
import {
  egressChainName,
  installEgressRule,
  removeEgressRule,
} from "../../action/src/sandbox/egress-rule.ts";
import { startEgressProxy } from "../../action/src/sandbox/start-egress-proxy.ts";
import { egressRuleSkip } from "../support/egress-rule-skip.ts";

const skip = egressRuleSkip("egress-rule.test.ts");

/** curl as `uid` (no passwd entry needed: the rule matches the number); exit code and stderr. */
function curlAs(uid: number, args: string[]): Promise<{ code: number; err: string }> {
  return new Promise((resolve) => {
    execFile(
      "curl",
      ["-sS", "-f", "-m", "5", "-o", "/dev/null", ...args],
      { uid, gid: uid, env: {} },
      (error, _out, err) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, err }),
    );
  });
}

const rules = async (): Promise<string> =>
  (await runHostCommand("iptables", ["-w", "10", "-S"])).stdout +
  (await runHostCommand("ip6tables", ["-w", "10", "-S"])).stdout;

test(
  "the egress rule sends only the session user's traffic through the proxy and is gone after removal",
  { skip },
  async () => {
    // A uid no account has: the rule can match nothing else on this machine.
    const uid = 61_000 + Math.floor(Math.random() * 3000);
    const rule = { chain: egressChainName(`loom-t${uid}`), uid };
    const server = http.createServer((_request, response) => response.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const proxy = await startEgressProxy({ allow: ["allowed.localhost"], now: Date.now });
    try {
      assert.equal(
        await installEgressRule(runHostCommand, {
          ...rule,
          proxyPort: proxy.port,
          direct: [],
          loopback: false,
        }),
        null,
      );
      assert.match(await rules(), new RegExp(`--uid-owner ${uid} -j ${rule.chain}`));
      const direct = await curlAs(uid, [`http://127.0.0.1:${port}/`]);
      assert.equal(direct.code, 7, `a direct connection is refused: ${direct.err}`);
      const allowed = await curlAs(uid, ["--proxy", proxy.url, `http://allowed.localhost:${port}/`]);
      assert.equal(allowed.code, 0, allowed.err);
      const denied = await curlAs(uid, [
        "--proxy",
        proxy.url,
        "--proxytunnel",
        `http://denied.localhost:${port}/`,
      ]);
      assert.notEqual(denied.code, 0);
      assert.deepEqual(
        proxy.denials().map((d) => d.host),
        ["denied.localhost"],
      );
      // Another user's traffic (root's, here) is untouched while the rule is in place.
      assert.equal((await curlAs(0, [`http://127.0.0.1:${port}/`])).code, 0);
      assert.deepEqual(await removeEgressRule(runHostCommand, rule), []);
      const left = await rules();
      assert.ok(!left.includes(rule.chain), left);
      assert.ok(!left.includes(`--uid-owner ${uid}`), left);
      const after = await curlAs(uid, [`http://127.0.0.1:${port}/`]);
      assert.equal(after.code, 0, `without the rule the user connects directly again: ${after.err}`);
    } finally {
      await removeEgressRule(runHostCommand, rule);
      await proxy.close();
      await new Promise((resolve) => server.close(resolve));
    }
  },
);

test("a rule that cannot be installed leaves nothing behind and says why", { skip }, async () => {
  const uid = 64_100 + Math.floor(Math.random() * 500);
  const rule = { chain: egressChainName(`loom-t${uid}`), uid };
  const problem = await installEgressRule(runHostCommand, {
    ...rule,
    proxyPort: 1,
    direct: [{ address: "not-an-address", port: 80 }],
    loopback: false,
  });
  assert.match(problem ?? "", /^iptables .*not-an-address/);
  const left = await rules();
  assert.ok(!left.includes(rule.chain), left);
});
