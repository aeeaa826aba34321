import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { findSecrets, redactSecrets, REDACTED, type SecretKind } from "../../src/redact/redact-secrets.ts";

/** Deterministic filler so fixtures are built, never pasted: no real-looking secret sits in git. */
function filler(length: number, alphabet = "aB3dE5fG7hJ9kLmN0pQrStUvWxYz"): string {
  let out = "";
  for (let i = 0; i < length; i += 1) out += alphabet[(i * 7 + 3) % alphabet.length];
  return out;
}

const b64url = (length: number): string => filler(length, "Ab1-Cd2_Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv");
const jwt = `eyJ${b64url(33)}.eyJ${b64url(180)}.${b64url(86)}`;
const longInstallationToken = `ghs_1234567_${jwt}`.padEnd(520, "x");

const cases: { name: string; secret: string; kind: SecretKind; around?: [string, string] }[] = [
  { name: "classic personal token ghp_ (36 chars)", secret: `ghp_${filler(36)}`, kind: "github-token" },
  { name: "OAuth token gho_", secret: `gho_${filler(36)}`, kind: "github-token" },
  { name: "user-to-server token ghu_", secret: `ghu_${filler(36)}`, kind: "github-token" },
  { name: "installation token ghs_ (classic 36 chars)", secret: `ghs_${filler(36)}`, kind: "github-token" },
  { name: "refresh token ghr_ (long)", secret: `ghr_${filler(76)}`, kind: "github-token" },
  {
    name: "future token shape with dashes and underscores",
    secret: `ghu_${b64url(20)}Z9_${b64url(20)}`,
    kind: "github-token",
  },
  {
    name: "new long installation token ghs_<appid>_<jwt> (~520 chars)",
    secret: longInstallationToken,
    kind: "github-token",
  },
  {
    name: "fine-grained token github_pat_",
    secret: `github_pat_${filler(22)}_${filler(59)}`,
    kind: "github-pat",
  },
  { name: "Anthropic API key", secret: `sk-ant-api03-${b64url(93)}AA`, kind: "anthropic-key" },
  { name: "Anthropic OAuth token", secret: `sk-ant-oat01-${b64url(60)}`, kind: "anthropic-key" },
  {
    name: "AWS access key id",
    secret: `AKIA${filler(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")}`,
    kind: "aws-access-key",
  },
  {
    name: "AWS temporary access key id",
    secret: `ASIA${filler(16, "QWERTYUIOPASDFGHJKLZ234567")}`,
    kind: "aws-access-key",
  },
  {
    name: "AWS secret access key after its name",
    secret: filler(40, "abcXYZ0123456789/+klmNOP"),
    kind: "aws-secret-key",
    around: ["aws_secret_access_key = ", "\n"],
  },
  {
    name: "RSA private key block",
    secret: `-----BEGIN RSA PRIVATE KEY-----\n${filler(64)}\n${filler(64)}\n-----END RSA PRIVATE KEY-----`,
    kind: "private-key",
  },
  {
    name: "OpenSSH private key block",
    secret: `-----BEGIN OPENSSH PRIVATE KEY-----\n${filler(70)}\n-----END OPENSSH PRIVATE KEY-----`,
    kind: "private-key",
  },
  {
    name: "PKCS#8 private key with no END (truncated) redacts to the end",
    secret: `-----BEGIN PRIVATE KEY-----\n${filler(64)}\n`,
    kind: "private-key",
    around: ["key: ", ""],
  },
  { name: "JSON Web Token", secret: jwt, kind: "jwt" },
  {
    name: "opaque Bearer token in an Authorization header",
    secret: `${filler(30)}.${filler(12)}`,
    kind: "bearer-token",
    around: ["Authorization: Bearer ", "\r\n"],
  },
  { name: "npm token", secret: `npm_${filler(36)}`, kind: "npm-token" },
  {
    name: "npm registry token in .npmrc",
    secret: `${filler(8)}-${filler(4)}-${filler(12)}`,
    kind: "npm-token",
    around: ["//registry.npmjs.org/:_authToken=", "\n"],
  },
  { name: "Slack bot token", secret: `xoxb-1234567890-${filler(24)}`, kind: "slack-token" },
  { name: "Slack refresh token", secret: `xoxe.xoxp-1-${filler(40)}`, kind: "slack-token" },
  { name: "Slack app-level token", secret: `xapp-1-A0${filler(12)}-${filler(30)}`, kind: "slack-token" },
  {
    name: "Slack incoming webhook URL",
    secret: `https://hooks.slack.com/services/T0${filler(8)}/B0${filler(8)}/${filler(24)}`,
    kind: "slack-token",
  },
  {
    name: "OpenPGP private key block",
    secret: `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${filler(64)}\n=${filler(4)}\n-----END PGP PRIVATE KEY BLOCK-----`,
    kind: "private-key",
  },
  { name: "OpenAI project key", secret: `sk-proj-${b64url(120)}`, kind: "openai-key" },
  { name: "OpenAI service account key", secret: `sk-svcacct-${b64url(60)}`, kind: "openai-key" },
  { name: "OpenAI legacy key", secret: `sk-${filler(20)}T3BlbkFJ${filler(20)}`, kind: "openai-key" },
  { name: "Google API key", secret: `AIza${b64url(35)}`, kind: "google-key" },
  { name: "Google OAuth client secret", secret: `GOCSPX-${b64url(28)}`, kind: "google-key" },
  { name: "Google OAuth access token", secret: `ya29.${b64url(100)}`, kind: "google-key" },
  { name: "Stripe live secret key", secret: `sk_live_${filler(24)}`, kind: "stripe-key" },
  { name: "Stripe restricted test key", secret: `rk_test_${filler(99)}`, kind: "stripe-key" },
  { name: "Stripe webhook signing secret", secret: `whsec_${filler(32)}`, kind: "stripe-key" },
  { name: "GitLab personal access token", secret: `glpat-${b64url(20)}`, kind: "gitlab-token" },
  { name: "GitLab runner token", secret: `glrt-${b64url(20)}.01.${b64url(9)}`, kind: "gitlab-token" },
  { name: "GitLab runner registration token", secret: `GR1348941${b64url(20)}`, kind: "gitlab-token" },
];

describe("redactSecrets: token patterns, case by case", () => {
  for (const { name, secret, kind, around } of cases) {
    const [pre, post] = around ?? ["token=", " and more text"];
    const text = `first line\n${pre}${secret}${post}`;

    it(`redacts a ${name}`, () => {
      const redacted = redactSecrets(text);
      assert.equal(redacted, `first line\n${pre}${REDACTED}${post}`);
      assert.ok(!redacted.includes(secret));
    });

    it(`finds a ${name} with its kind and line, without the secret`, () => {
      const findings = findSecrets(text);
      assert.equal(findings.length, 1, JSON.stringify(findings));
      const [finding] = findings;
      assert.equal(finding?.kind, kind);
      assert.equal(finding?.line, 2);
      assert.equal(finding?.column, pre.length + 1);
      assert.equal(finding?.length, secret.length);
      assert.ok(!JSON.stringify(findings).includes(secret));
    });
  }
});

describe("redactSecrets: known secret values", () => {
  it("replaces every occurrence of a known value, whatever its shape", () => {
    assert.equal(
      redactSecrets("key=hunter2-password; again hunter2-password.", ["hunter2-password"]),
      `key=${REDACTED}; again ${REDACTED}.`,
    );
  });

  it("treats regex characters in a known value literally", () => {
    assert.equal(redactSecrets("a.b*c+d(e) a_b_c_d_e", ["a.b*c+d(e)"]), `${REDACTED} a_b_c_d_e`);
  });

  it("ignores empty and very short known values instead of shredding the text", () => {
    assert.equal(redactSecrets("a plain sentence", ["", "a", "en"]), "a plain sentence");
  });

  it("reports a known value as known-secret", () => {
    assert.deepEqual(
      findSecrets("x\n  value-of-a-secret", ["value-of-a-secret"]).map((f) => [f.kind, f.line, f.column]),
      [["known-secret", 2, 3]],
    );
  });

  it("redacts overlapping known value and token pattern once", () => {
    const token = `ghp_${filler(36)}`;
    assert.equal(redactSecrets(`Bearer ${token}`, [token.slice(0, 20)]), `Bearer ${REDACTED}`);
  });
});

describe("redactSecrets: ordinary text passes unchanged", () => {
  const harmless = [
    "the ghp_ prefix marks a personal access token",
    "see https://github.com/cosmix/loom/blob/main/README.md",
    "commit 2f4c1c9b0a7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c",
    "use a Bearer token in the Authorization header",
    "Bearer authentication is described in RFC 6750",
    "sk-ant- keys come from the console",
    "-----BEGIN PUBLIC KEY-----",
    "AKIA is the prefix of an access key id",
    "const taskAsk = ask-ant-colony;",
    "the ghs_installation_token_format_changed and ghp_token_placeholder_value_for_docs",
    "github_pat_prefix_is_documented_here",
    "set ANTHROPIC_API_KEY=sk-ant-your-key-here",
    "-----BEGIN PGP PUBLIC KEY BLOCK-----",
    "//registry.npmjs.org/:_authToken=${NPM_TOKEN}",
    "this._auth = options.authentication;",
    "Stripe keys start sk_live_ or sk_test_; OpenAI project keys start sk-proj-",
    "Google API keys start AIza, GitLab tokens glpat-, Slack tokens xoxb-",
    "const risk_level_test_data = load();",
  ];
  for (const text of harmless) {
    it(`keeps: ${text}`, () => {
      assert.equal(redactSecrets(text), text);
      assert.deepEqual(findSecrets(text), []);
    });
  }
});

describe("redactSecrets: several secrets in one text", () => {
  it("redacts each and reports each with its own position", () => {
    const gh = `ghs_${filler(36)}`;
    const ant = `sk-ant-api03-${b64url(40)}`;
    const text = `a ${gh}\nb ${ant} c ${gh}`;
    assert.equal(redactSecrets(text), `a ${REDACTED}\nb ${REDACTED} c ${REDACTED}`);
    assert.deepEqual(
      findSecrets(text).map((f) => [f.kind, f.line, f.column]),
      [
        ["github-token", 1, 3],
        ["anthropic-key", 2, 3],
        ["github-token", 2, 6 + ant.length],
      ],
    );
  });

  it("keeps the sentence's final period outside a redacted token", () => {
    assert.equal(redactSecrets(`the token is ghp_${filler(36)}.`), `the token is ${REDACTED}.`);
  });
});
