import assert from "node:assert/strict";
import { test } from "node:test";
import { readAppConfig } from "../../app/config/app-config.ts";

test("the server's settings default sensibly and come from the environment", () => {
  assert.deepEqual(readAppConfig({}), {
    databaseUrl: null,
    sqlitePath: "data/loom.sqlite",
    reconcileIntervalMs: 60_000,
    pollIntervalMs: 5_000,
    botLogin: null,
    workerId: null,
    githubThrottle: true,
    serverUrl: "https://github.com",
  });
  const config = readAppConfig({
    DATABASE_URL: "postgres://x@127.0.0.1/loom",
    LOOM_SQLITE_PATH: "/var/loom.db",
    LOOM_RECONCILE_INTERVAL_SECS: "120",
    LOOM_POLL_INTERVAL_SECS: "0.5",
    LOOM_BOT_LOGIN: "loom[bot]",
    LOOM_WORKER_ID: "pod-1",
    LOOM_GITHUB_THROTTLE: "off",
  });
  assert.equal(config.databaseUrl, "postgres://x@127.0.0.1/loom");
  assert.equal(config.reconcileIntervalMs, 120_000);
  assert.equal(config.pollIntervalMs, 500);
  assert.equal(config.botLogin, "loom[bot]");
  assert.equal(config.githubThrottle, false);
});

test("on GitHub Enterprise Server the links loom writes point at GHE_HOST, not github.com", () => {
  assert.equal(readAppConfig({ GHE_HOST: "ghe.example.com" }).serverUrl, "https://ghe.example.com");
  assert.equal(
    readAppConfig({ GHE_HOST: "127.0.0.1:8443", GHE_PROTOCOL: "http" }).serverUrl,
    "http://127.0.0.1:8443",
  );
  assert.throws(() => readAppConfig({ GHE_HOST: "ghe.example.com/evil" }), /GHE_HOST/);
  assert.throws(() => readAppConfig({ GHE_HOST: "ghe.example.com", GHE_PROTOCOL: "ftp" }), /GHE_PROTOCOL/);
});

test("a bad interval stops the server with a clear message", () => {
  assert.throws(
    () => readAppConfig({ LOOM_RECONCILE_INTERVAL_SECS: "soon" }),
    /LOOM_RECONCILE_INTERVAL_SECS/,
  );
  assert.throws(() => readAppConfig({ LOOM_RECONCILE_INTERVAL_SECS: "0.1" }));
  assert.throws(
    () => readAppConfig({ LOOM_GITHUB_THROTTLE: "fast" }),
    /LOOM_GITHUB_THROTTLE must be on or off/,
  );
});
