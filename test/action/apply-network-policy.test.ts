import assert from "node:assert/strict";
import { test } from "node:test";
import { applyNetworkPolicy, recordNetwork } from "../../action/src/sandbox/apply-network-policy.ts";
import type { LimitNetwork, NetworkLimitRequest } from "../../action/src/sandbox/network-limit.ts";
import { parseLoomConfig } from "../../src/config/loom-config.ts";
import { LoomMetadata, Stage } from "../../src/plan/plan.ts";

const stage = Stage.parse({
  id: "build",
  name: "Build",
  sandbox: { network: { allowed_domains: ["github.com"], allow_local_binding: true } },
});
const plan = LoomMetadata.parse({ version: 1, stages: [stage] });
const env = { ANTHROPIC_BASE_URL: "http://127.0.0.1:9999" };
const config = (text: string) => {
  const read = parseLoomConfig(text);
  assert.ok(read.ok);
  return read.config;
};
const cannot: LimitNetwork = () => Promise.resolve({ ok: false, reason: "no iptables here" });

test("a stage without a sandbox is left open and asks for no limit", async () => {
  const open = Stage.parse({ id: "build", name: "Build" });
  let asked = false;
  const applied = await applyNetworkPolicy({
    plan: LoomMetadata.parse({ version: 1, stages: [open] }),
    stage: open,
    repoConfig: null,
    sessionEnv: env,
    limitNetwork: () => {
      asked = true;
      return cannot({ allow: [], loopback: false, direct: [] });
    },
  });
  assert.deepEqual(applied, { kind: "open" });
  assert.equal(asked, false);
  assert.equal(recordNetwork(applied), undefined);
});

test("the limit asked for carries the allowlist, loopback and the model gateway's address", async () => {
  let request: NetworkLimitRequest | undefined;
  const applied = await applyNetworkPolicy({
    plan,
    stage,
    repoConfig: null,
    sessionEnv: env,
    limitNetwork: (asked) => {
      request = asked;
      return Promise.resolve({
        ok: true,
        limit: {
          env: { HTTPS_PROXY: "http://127.0.0.1:1" },
          denials: () => [{ host: "evil.example", port: 443, at: "2026-01-01T00:00:00.000Z", count: 3 }],
          moreDenials: () => 0,
        },
      });
    },
  });
  assert.deepEqual(request, {
    allow: ["github.com", "127.0.0.1:9999"],
    loopback: true,
    direct: [{ address: "127.0.0.1", port: 9999 }],
  });
  assert.equal(applied.kind, "limited");
  assert.deepEqual(
    recordNetwork(applied)?.blocked.map((b) => b.host),
    ["evil.example"],
  );
});

test("a sandbox the runner cannot enforce refuses the stage with the reason and the way out", async () => {
  for (const limitNetwork of [cannot, undefined]) {
    const applied = await applyNetworkPolicy({
      plan,
      stage,
      repoConfig: null,
      sessionEnv: env,
      limitNetwork,
    });
    assert.equal(applied.kind, "refused");
    assert.match(
      applied.kind === "refused" ? applied.reason : "",
      /^not started: .*cannot be enforced.*session: \{ sandbox: advisory \}/,
    );
  }
  const applied = await applyNetworkPolicy({
    plan,
    stage,
    repoConfig: config("session:\n  sandbox: enforced\n"),
    sessionEnv: env,
    limitNetwork: cannot,
  });
  assert.match(applied.kind === "refused" ? applied.reason : "", /no iptables here/);
});

test("with session.sandbox: advisory an unenforceable sandbox runs and says it was not enforced", async () => {
  const applied = await applyNetworkPolicy({
    plan,
    stage,
    repoConfig: config("session:\n  sandbox: advisory\n"),
    sessionEnv: env,
    limitNetwork: cannot,
  });
  assert.equal(applied.kind, "advisory");
  const record = recordNetwork(applied);
  assert.equal(record?.mode, "advisory");
  assert.match(record?.reason ?? "", /not enforced: no iptables here/);
});
