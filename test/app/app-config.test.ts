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
    metrics: { port: null, host: "127.0.0.1", token: null },
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

test("metrics are served nowhere until METRICS_PORT or METRICS_TOKEN says where", () => {
  assert.deepEqual(readAppConfig({}).metrics, { port: null, host: "127.0.0.1", token: null });
  assert.deepEqual(
    readAppConfig({ METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0", METRICS_TOKEN: "0123456789abcdef" })
      .metrics,
    { port: 9464, host: "0.0.0.0", token: "0123456789abcdef" },
  );
  assert.throws(() => readAppConfig({ METRICS_PORT: "metrics" }), /METRICS_PORT must be a port number/);
  assert.throws(() => readAppConfig({ METRICS_PORT: "70000" }), /METRICS_PORT must be between 1 and 65535/);
  assert.throws(
    () => readAppConfig({ METRICS_TOKEN: "short" }),
    /METRICS_TOKEN must be at least 16 characters/,
  );
});
