import assert from "node:assert/strict";
import { test } from "node:test";
import { runStage } from "../../action/src/run-stage.ts";
import type { NetworkLimitRequest } from "../../action/src/sandbox/network-limit.ts";
import type { RunSessionOptions } from "../../action/src/session/run-session.ts";
import { parseLoomConfig } from "../../src/config/loom-config.ts";
import { deps, finishedSession, inputs, makeFixture } from "./run-stage-fixture.ts";

const SANDBOXED = `
- id: build
  name: Build
  description: Write greet.txt
  sandbox:
    network:
      allowed_domains: [github.com]
`;

const noSession = (): never => {
  throw new Error("the session must not start");
};

test("a stage whose network sandbox the runner cannot enforce does not start, and says why and how to opt out", async (t) => {
  const f = await makeFixture(SANDBOXED, t);
  const { result } = await runStage(
    inputs(),
    deps(f, noSession, {
      limitNetwork: () => Promise.resolve({ ok: false, reason: "no iptables on this runner" }),
    }),
  );
  assert.equal(result.outcome, "crashed");
  assert.match(
    result.reason,
    /^not started: the stage's network sandbox .*cannot be enforced on this runner: no iptables on this runner\. .*session: \{ sandbox: advisory \}/,
  );
  assert.equal(result.network, undefined);
});

test("with session.sandbox: advisory it runs, without the proxy, and loom-result says it was not enforced", async (t) => {
  const f = await makeFixture(SANDBOXED, t);
  let env: RunSessionOptions["env"] = {};
  const config = parseLoomConfig("session:\n  sandbox: advisory\n");
  assert.ok(config.ok);
  const { result } = await runStage(
    inputs(),
    deps(
      f,
      (o) => {
        env = o.env;
        return finishedSession(o);
      },
      {
        limitNetwork: () => Promise.resolve({ ok: false, reason: "no iptables on this runner" }),
        readRepoConfig: () => Promise.resolve({ ok: true, config: config.config }),
      },
    ),
  );
  assert.equal(env.HTTPS_PROXY, undefined);
  assert.equal(result.network?.mode, "advisory");
  assert.match(result.network?.reason ?? "", /not enforced: no iptables on this runner/);
});

test("a held session and its checks get the proxy's variables; the session is told the limit is enforced", async (t) => {
  const f = await makeFixture(
    `${SANDBOXED}  acceptance: ["test \\"$HTTPS_PROXY\\" = http://127.0.0.1:1"]\n`,
    t,
  );
  let options: RunSessionOptions | undefined;
  let asked: NetworkLimitRequest | undefined;
  const { result } = await runStage(
    inputs(),
    deps(
      f,
      (o) => {
        options = o;
        return finishedSession(o);
      },
      {
        limitNetwork: (request) => {
          asked = request;
          return Promise.resolve({
            ok: true,
            limit: { env: { HTTPS_PROXY: "http://127.0.0.1:1" }, denials: () => [], moreDenials: () => 0 },
          });
        },
      },
    ),
  );
  assert.deepEqual(asked?.allow, ["github.com", "api.anthropic.com"]);
  assert.equal(options?.env.HTTPS_PROXY, "http://127.0.0.1:1");
  assert.match(options?.prompt ?? "", /The network limit is enforced/);
  assert.deepEqual(
    result.checks.map((c) => c.passed),
    [true],
    "the check saw the proxy too",
  );
  assert.deepEqual(result.network, {
    mode: "limited",
    allow: ["github.com", "api.anthropic.com"],
    notes: [],
    blocked: [],
    more_blocked: 0,
  });
});
