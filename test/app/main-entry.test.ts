import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createHmac } from "node:crypto";
import { createPrivateKey } from "../support/create-private-key.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { DatabaseSync } from "node:sqlite";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import { freePort } from "../support/free-port.ts";
import { findRedisSkipReason, TEST_REDIS_URL } from "../support/test-redis.ts";

const ROOT = join(import.meta.dirname, "..", "..");
let child: ChildProcess | undefined;
let dir: string | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Starts `npm start`'s command with a clean environment plus `env`. */
function start(env: Record<string, string>): void {
  const base: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    HOME: process.env["HOME"] ?? "/tmp",
  };
  child = spawn(process.execPath, ["app/main.ts"], {
    cwd: ROOT,
    env: { ...base, NO_SMEE_SETUP: "true", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function fetchWhenUp(url: string, init?: RequestInit): Promise<Response> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      return await fetch(url, init);
    } catch {
      // Not listening yet (a bounded wait: 100 × 200 ms).
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`${url} never answered`);
}

test("without credentials npm start serves Probot's setup page with loom's manifest", async () => {
  const port = await freePort();
  start({ PORT: String(port) });
  const page = await (await fetchWhenUp(`http://localhost:${port}/probot`)).text();
  const manifest = /value='([^']+)'/.exec(page)?.[1];
  assert.ok(manifest, "the page carries the manifest");
  const parsed = JSON.parse(manifest.replaceAll("&quot;", '"')) as Record<string, unknown>;
  assert.equal(parsed["name"], "loom");
  assert.deepEqual(parsed["default_events"], ["pull_request", "issue_comment", "check_run", "workflow_run"]);
  assert.deepEqual(parsed["default_permissions"], {
    checks: "write",
    contents: "write",
    actions: "write",
    pull_requests: "write",
    issues: "write",
    metadata: "read",
  });
});

/** Starts the app with credentials (plus `env`), sends a webhook three ways and reads the inbox. */
async function receivesWebhooksOnce(env: Record<string, string>): Promise<void> {
  const port = await freePort();
  dir = mkdtempSync(join(tmpdir(), "loom-main-"));
  const sqlitePath = join(dir, "loom.sqlite");
  const privateKey = createPrivateKey();
  start({
    PORT: String(port),
    APP_ID: "1",
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET: "s3cret",
    LOOM_SQLITE_PATH: sqlitePath,
    LOOM_BOT_LOGIN: "loom-app[bot]",
    LOOM_RECONCILE_INTERVAL_SECS: "3600",
    ...env,
  });
  // A label change on a pull request loom has no plan for: recorded, then nothing to do (no API call).
  const body = JSON.stringify(
    pullRequestPayload("labeled", { number: 9, headSha: "b".repeat(40), label: "bug", labels: ["bug"] }),
  );
  const post = (signature: string) =>
    fetchWhenUp(`http://localhost:${port}/api/github/webhooks`, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        "x-github-event": "pull_request",
        "x-github-delivery": "11111111-2222-3333-4444-555555555555",
        "x-hub-signature-256": signature,
      },
    });
  const signature = `sha256=${createHmac("sha256", "s3cret").update(body).digest("hex")}`;
  assert.equal((await post(signature)).status, 200);
  assert.equal((await post(signature)).status, 200, "a redelivery is answered too");
  assert.equal((await post("sha256=" + "0".repeat(64))).status, 400, "a bad signature is refused");
  const health = await fetchWhenUp(`http://localhost:${port}/healthz`);
  assert.equal(health.status, 200, "the readiness check sees the store");
  const db = new DatabaseSync(sqlitePath, { readOnly: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((row) => String(row["name"]));
    const inbox = tables.find((name) => /deliver/i.test(name));
    assert.ok(inbox, `an inbox table among ${tables.join(", ")}`);
    const rows = db.prepare(`SELECT COUNT(*) AS n FROM ${inbox}`).get();
    assert.equal(Number(rows?.["n"]), 1);
  } finally {
    db.close();
  }
}

test("with credentials npm start accepts signed webhooks and records each delivery once", async () => {
  await receivesWebhooksOnce({});
});

const redisSkip = await findRedisSkipReason("main-entry tests");

// README's replica setup sets REDIS_URL; Probot then loads `ioredis` for its shared rate-limit
// throttle, and without it every webhook fails while the process looks healthy.
test(
  "with REDIS_URL set (several replicas) npm start still accepts webhooks",
  { skip: redisSkip ?? false },
  async () => {
    await receivesWebhooksOnce({ REDIS_URL: TEST_REDIS_URL });
  },
);

test("with credentials but no WEBHOOK_SECRET loom refuses to start with one line, not Probot's development secret", async () => {
  dir = mkdtempSync(join(tmpdir(), "loom-no-secret-"));
  const refused = spawn(process.execPath, [join(ROOT, "app/main.ts")], {
    cwd: dir,
    env: {
      PATH: process.env["PATH"] ?? "",
      HOME: process.env["HOME"] ?? "/tmp",
      APP_ID: "1",
      PRIVATE_KEY: createPrivateKey(),
      PORT: String(await freePort()),
      LOOM_SQLITE_PATH: join(dir, "loom.sqlite"),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  refused.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const code = await new Promise<number | null>((resolve) => refused.once("exit", resolve));
  assert.equal(code, 1);
  assert.match(stderr, /^loom: WEBHOOK_SECRET is not set: /m);
  assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
});
