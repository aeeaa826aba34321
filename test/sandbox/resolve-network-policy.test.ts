import assert from "node:assert/strict";
import { test } from "node:test";
import { parseLoomConfig, requiresSandbox } from "../../src/config/loom-config.ts";
import { coversDomain, matchesDomain } from "../../src/sandbox/match-domain.ts";
import { listProviderHosts } from "../../src/sandbox/list-provider-hosts.ts";
import { resolveNetworkPolicy } from "../../src/sandbox/resolve-network-policy.ts";

const provider = ["api.anthropic.com"];

test("a domain pattern matches its host, or every subdomain with *.", () => {
  const cases: [string, string, boolean][] = [
    ["github.com", "github.com", true],
    ["github.com", "api.github.com", false],
    ["*.github.com", "api.github.com", true],
    ["*.github.com", "a.b.github.com", true],
    ["*.github.com", "github.com", false],
    ["*.github.com", "evilgithub.com", false],
    ["GitHub.com.", "github.COM", true],
    ["127.0.0.1", "127.0.0.1", true],
    ["::1", "[::1]", true],
    ["*", "anything.example", true],
  ];
  for (const [pattern, host, expected] of cases)
    assert.equal(matchesDomain(pattern, host), expected, `${pattern} ${host}`);
  assert.ok(matchesDomain("127.0.0.1:8080", "127.0.0.1", 8080));
  assert.ok(!matchesDomain("127.0.0.1:8080", "127.0.0.1", 22));
  assert.ok(!matchesDomain("127.0.0.1:8080", "127.0.0.1"));
  assert.ok(matchesDomain("[::1]:8080", "::1", 8080));
  assert.ok(matchesDomain("github.com", "github.com", 22));
  assert.ok(coversDomain("*.a.com", "*.x.a.com"));
  assert.ok(coversDomain("*.a.com", "x.a.com"));
  assert.ok(!coversDomain("x.a.com", "*.a.com"));
  assert.ok(!coversDomain("*.x.a.com", "*.a.com"));
});

test("no sandbox in the plan and no network in .github/loom.yml leaves the network open", () => {
  const policy = resolveNetworkPolicy({
    plan: {},
    stage: { id: "a" },
    repoConfig: null,
    providerHosts: provider,
  });
  assert.deepEqual(policy, { kind: "open" });
});

test("a plan sandbox allows its domains, the additional ones and the model provider", () => {
  const policy = resolveNetworkPolicy({
    plan: { sandbox: { network: { allowed_domains: ["github.com"], additional_domains: ["*.npmjs.org"] } } },
    stage: { id: "a" },
    repoConfig: null,
    providerHosts: provider,
  });
  assert.deepEqual(policy, {
    kind: "limited",
    allow: ["github.com", "*.npmjs.org", "api.anthropic.com"],
    from: "plan",
    notes: [],
  });
});

test("a stage's network wins over the plan's, and a stage may turn the sandbox off", () => {
  const plan = { sandbox: { network: { allowed_domains: ["github.com"] } } };
  const own = resolveNetworkPolicy({
    plan,
    stage: { id: "a", sandbox: { network: { allowed_domains: ["pypi.org"] } } },
    repoConfig: null,
    providerHosts: provider,
  });
  assert.ok(own.kind === "limited");
  assert.deepEqual(own.allow, ["pypi.org", "api.anthropic.com"]);
  const off = resolveNetworkPolicy({
    plan,
    stage: { id: "a", sandbox: { enabled: false } },
    repoConfig: null,
    providerHosts: provider,
  });
  assert.deepEqual(off, { kind: "open" });
});

test("a sandbox with no domains allows only the model provider, as the reference's empty list", () => {
  const policy = resolveNetworkPolicy({
    plan: { sandbox: {} },
    stage: { id: "a" },
    repoConfig: null,
    providerHosts: provider,
  });
  assert.ok(policy.kind === "limited");
  assert.deepEqual(policy.allow, ["api.anthropic.com"]);
});

test("a plan narrows .github/loom.yml's allowlist and never widens it, saying what it dropped", () => {
  const repo = parseLoomConfig("session:\n  network:\n    allow: [github.com, '*.npmjs.org', pypi.org]\n");
  assert.ok(repo.ok);
  const policy = resolveNetworkPolicy({
    plan: {
      sandbox: { network: { allowed_domains: ["registry.npmjs.org", "github.com", "evil.example", "*"] } },
    },
    stage: { id: "a" },
    repoConfig: repo.config,
    providerHosts: provider,
  });
  assert.ok(policy.kind === "limited");
  assert.deepEqual(policy.allow, [
    "registry.npmjs.org",
    "github.com",
    "*.npmjs.org",
    "pypi.org",
    "api.anthropic.com",
  ]);
  assert.equal(policy.from, "plan within .github/loom.yml");
  assert.equal(policy.notes.length, 2);
  assert.match(policy.notes[0] ?? "", /evil\.example.*not allowed/);
  assert.match(policy.notes[1] ?? "", /`\*` is narrowed/);
});

test(".github/loom.yml's allowlist holds for plans without a sandbox, and enabled: false cannot lift it", () => {
  const repo = parseLoomConfig("session:\n  network:\n    allow: [github.com]\n");
  assert.ok(repo.ok);
  const none = resolveNetworkPolicy({
    plan: {},
    stage: { id: "a" },
    repoConfig: repo.config,
    providerHosts: provider,
  });
  assert.deepEqual(none, {
    kind: "limited",
    allow: ["github.com", "api.anthropic.com"],
    from: ".github/loom.yml",
    notes: [],
  });
  const off = resolveNetworkPolicy({
    plan: { sandbox: { enabled: false } },
    stage: { id: "a" },
    repoConfig: repo.config,
    providerHosts: provider,
  });
  assert.ok(off.kind === "limited");
  assert.deepEqual(off.allow, ["github.com", "api.anthropic.com"]);
  assert.match(off.notes[0] ?? "", /does not lift/);
});

test(".github/loom.yml's session.network and session.sandbox are checked", () => {
  assert.ok(!parseLoomConfig("session:\n  network:\n    allow: ['bad host']\n").ok);
  assert.ok(!parseLoomConfig("session:\n  network:\n    allowed: [github.com]\n").ok);
  assert.ok(!parseLoomConfig("session:\n  sandbox: off\n").ok);
  const advisory = parseLoomConfig("session:\n  sandbox: advisory\n");
  assert.ok(advisory.ok);
  assert.equal(requiresSandbox(advisory.config), false);
  assert.equal(requiresSandbox(null), true);
});

test("the model provider's hosts are always allowed, a gateway's only on its own port", () => {
  assert.deepEqual(listProviderHosts({}), ["api.anthropic.com"]);
  assert.deepEqual(listProviderHosts({ ANTHROPIC_BASE_URL: "http://127.0.0.1:9999" }), ["127.0.0.1:9999"]);
  assert.deepEqual(listProviderHosts({ ANTHROPIC_BASE_URL: "https://gw.example" }), ["gw.example:443"]);
  assert.deepEqual(listProviderHosts({ CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "eu-west-1" }), [
    "bedrock-runtime.eu-west-1.amazonaws.com",
    "bedrock.eu-west-1.amazonaws.com",
  ]);
  assert.deepEqual(
    listProviderHosts({ CLAUDE_CODE_USE_VERTEX: "1", CLOUD_ML_REGION: "us-east5" })[0],
    "us-east5-aiplatform.googleapis.com",
  );
  assert.deepEqual(
    listProviderHosts({ CLAUDE_CODE_USE_VERTEX: "1", ANTHROPIC_VERTEX_BASE_URL: "http://[::1]:8080" }),
    ["[::1]:8080"],
  );
});
