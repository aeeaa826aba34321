import { findKnownSecrets, type KnownSecretEncoding } from "./find-known-secrets.ts";

export { MIN_KNOWN_SECRET_LENGTH } from "./find-known-secrets.ts";

/**
 * Secret redaction for every way out (logs, comments, check runs, artifacts, commits) and the
 * secret scan of the publish job. Token lengths are never assumed: installation tokens are moving
 * to a long `ghs_<appid>_<jwt>` format (~520 characters).
 */

export const SECRET_KINDS = [
  "known-secret",
  "github-token",
  "github-pat",
  "anthropic-key",
  "aws-access-key",
  "aws-secret-key",
  "private-key",
  "jwt",
  "bearer-token",
  "npm-token",
  "slack-token",
  "openai-key",
  "google-key",
  "stripe-key",
  "gitlab-token",
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

/** Where a secret was found. The secret itself is never part of a finding. */
export type SecretFinding = {
  kind: SecretKind;
  /** 0-based offset into the scanned text. */
  index: number;
  length: number;
  /** 1-based line and column of the first character. */
  line: number;
  column: number;
  /** For a `known-secret`: how the value was written (plain, base64, hex…). */
  encoding?: KnownSecretEncoding;
};

export const REDACTED = "[REDACTED]";

type Pattern = { kind: SecretKind; regex: RegExp; group?: number };

const before = "(?<![A-Za-z0-9_])";
const base64url = "[A-Za-z0-9_-]";

/** Ordered: earlier patterns win where matches overlap at the same start. */
const PATTERNS: readonly Pattern[] = [
  // PEM (RSA, EC, OpenSSH, PKCS#8, encrypted) and OpenPGP armour (`PRIVATE KEY BLOCK`).
  {
    kind: "private-key",
    regex:
      /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*$)/g,
  },
  // ghp_ gho_ ghu_ ghs_ ghr_: the new `ghs_<appid>_<jwt>` format, the classic one (36+ letters
  // and digits), and any other long run with a digit and a capital. Identifiers such as
  // `ghs_installation_token` pass.
  {
    kind: "github-token",
    regex: new RegExp(`${before}gh[pousr]_[0-9]+_${base64url}{20,}(?:\\.${base64url}+)*`, "g"),
  },
  { kind: "github-token", regex: new RegExp(`${before}gh[pousr]_[A-Za-z0-9]{36,}(?![A-Za-z0-9])`, "g") },
  {
    kind: "github-token",
    regex: new RegExp(
      `${before}gh[pousr]_(?=${base64url}*[0-9])(?=${base64url}*[A-Z])${base64url}{30,}`,
      "g",
    ),
  },
  { kind: "github-pat", regex: new RegExp(`${before}github_pat_[A-Za-z0-9]{20,}_[A-Za-z0-9]{40,}`, "g") },
  { kind: "anthropic-key", regex: new RegExp(`${before}sk-ant-${base64url}{32,}`, "g") },
  // OpenAI: project, service-account and admin keys; the older `sk-` keys (48 characters, most
  // holding `T3BlbkFJ`, base64 of "OpenAI").
  { kind: "openai-key", regex: new RegExp(`${before}sk-(?:proj|svcacct|admin)-${base64url}{20,}`, "g") },
  { kind: "openai-key", regex: new RegExp(`${before}sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20,}`, "g") },
  { kind: "openai-key", regex: new RegExp(`${before}sk-[A-Za-z0-9]{48}(?![A-Za-z0-9])`, "g") },
  // Google: API keys, OAuth client secrets, access and refresh tokens.
  { kind: "google-key", regex: new RegExp(`${before}AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])`, "g") },
  { kind: "google-key", regex: new RegExp(`${before}GOCSPX-${base64url}{24,}`, "g") },
  { kind: "google-key", regex: new RegExp(`${before}ya29\\.${base64url}{20,}`, "g") },
  { kind: "google-key", regex: new RegExp(`${before}1//0${base64url}{40,}`, "g") },
  // Stripe: secret and restricted keys (live and test), webhook signing secrets.
  { kind: "stripe-key", regex: new RegExp(`${before}(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}`, "g") },
  { kind: "stripe-key", regex: new RegExp(`${before}whsec_[0-9A-Za-z+/=]{24,}`, "g") },
  // GitLab: personal, deploy, runner, trigger, CI job, OAuth, feed… tokens; runner registration.
  {
    kind: "gitlab-token",
    regex: new RegExp(`${before}gl(?:pat|dt|rt|ptt|cbt|oas|soat|ffct|imt|agent|ft)-[0-9A-Za-z_.-]{20,}`, "g"),
  },
  { kind: "gitlab-token", regex: new RegExp(`${before}GR1348941${base64url}{20,}`, "g") },
  {
    kind: "aws-access-key",
    regex: /(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[A-Z0-9]{16}(?![A-Z0-9])/g,
  },
  {
    kind: "aws-secret-key",
    regex: /aws_?secret_?access_?key["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    group: 1,
  },
  {
    kind: "jwt",
    regex: new RegExp(`${before}eyJ${base64url}{8,}\\.eyJ${base64url}{8,}\\.${base64url}*`, "g"),
  },
  { kind: "npm-token", regex: new RegExp(`${before}npm_[A-Za-z0-9]{36,}(?![A-Za-z0-9])`, "g") },
  // Registry credentials in .npmrc (`//registry.npmjs.org/:_authToken=…`, `:_auth=`, `:_password=`),
  // but not `${NPM_TOKEN}` references. Only after the registry's colon: `this._auth = x` is code.
  {
    kind: "npm-token",
    regex: /(?<=:)_(?:authToken|auth|password)\s*=\s*["']?((?!\$\{)[^\s"']{8,})/g,
    group: 1,
  },
  // Slack: bot, user, app-level, configuration and refresh tokens; incoming webhook URLs.
  {
    kind: "slack-token",
    regex: new RegExp(`${before}(?:xox[abcprs]|xoxe(?:\\.xox[bp])?|xapp)-[A-Za-z0-9-]{10,}`, "g"),
  },
  {
    kind: "slack-token",
    regex: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,}/g,
  },
  // A token after "Bearer": at least 16 characters with a digit or capital, so prose passes.
  {
    kind: "bearer-token",
    regex: /\bBearer\s+((?=[A-Za-z0-9._~+/-]*[A-Z0-9])[A-Za-z0-9._~+/-]{16,}=*)/gi,
    group: 1,
  },
];

type Span = { kind: SecretKind; start: number; end: number; encoding?: KnownSecretEncoding };

function findKnownSpans(text: string, knownSecrets: readonly string[]): Span[] {
  return findKnownSecrets(text, knownSecrets).map(({ encoding, start, end }) => ({
    kind: "known-secret",
    start,
    end,
    encoding,
  }));
}

function findPatternSpans(text: string): Span[] {
  const spans: Span[] = [];
  for (const { kind, regex, group } of PATTERNS) {
    const withIndices = new RegExp(regex.source, regex.flags.includes("d") ? regex.flags : `${regex.flags}d`);
    for (const match of text.matchAll(withIndices)) {
      const range = group === undefined ? match.indices?.[0] : match.indices?.[group];
      if (range !== undefined && range[1] > range[0]) spans.push({ kind, start: range[0], end: range[1] });
    }
  }
  return spans;
}

/** All secret spans, overlaps merged (the first listed kind at the earliest start names the span). */
function findSpans(text: string, knownSecrets: readonly string[]): Span[] {
  const spans = [...findKnownSpans(text, knownSecrets), ...findPatternSpans(text)];
  const order = (kind: SecretKind): number => SECRET_KINDS.indexOf(kind);
  spans.sort((a, b) => a.start - b.start || b.end - a.end || order(a.kind) - order(b.kind));
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last !== undefined && span.start < last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

function locate(text: string, index: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { line, column: index - lineStart + 1 };
}

/** Replace every known secret value and every token-shaped secret with `[REDACTED]`. */
export function redactSecrets(text: string, knownSecrets: readonly string[] = []): string {
  let out = "";
  let cursor = 0;
  for (const span of findSpans(text, knownSecrets)) {
    out += text.slice(cursor, span.start) + REDACTED;
    cursor = span.end;
  }
  return out + text.slice(cursor);
}

/** What secrets the text holds and where, without the secrets themselves. */
export function findSecrets(text: string, knownSecrets: readonly string[] = []): SecretFinding[] {
  return findSpans(text, knownSecrets).map((span) => ({
    kind: span.kind,
    index: span.start,
    length: span.end - span.start,
    ...locate(text, span.start),
    ...(span.encoding === undefined ? {} : { encoding: span.encoding }),
  }));
}
