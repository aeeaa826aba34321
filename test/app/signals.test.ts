import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openStore } from "../../app/store/open-store.ts";
import { createIdleApp } from "../e2e/app-process.ts";

const TOKEN = "signals-metrics-token";

describe("the App process drains on SIGINT and SIGTERM", { timeout: 90_000 }, () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`${signal}: stops taking work, releases its leases, closes the store, logs it and exits 0`, async (t) => {
      // The real `node app/main.ts` on a fresh SQLite file; GitHub is never called while it idles.
      const { app, sqlitePath } = createIdleApp((fn) => t.after(fn), {
        name: "signals",
        webhookSecret: "signals-secret",
        env: { METRICS_TOKEN: TOKEN },
      });
      await app.start();
      const metrics = await fetch(new URL("/metrics", app.webhookUrl), {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(metrics.status, 200, "the real entry serves /metrics");
      assert.match(await metrics.text(), /^loom_inbox_depth 0$/m);
      // Bounded: stop() sends SIGKILL after 15 s, which would end with signal SIGKILL, not code 0.
      const exit = await app.stop(signal);
      const messages = app.logs.map((line) => String(line["msg"]));
      assert.deepEqual(exit, { code: 0, signal: null }, messages.join("\n"));
      const steps = [
        `loom stopping on ${signal}`,
        "stopped taking webhooks",
        "stopped the engine; the work in flight is finished",
        "released this worker's leases",
        "closed the store",
        "loom stopped",
      ];
      assert.deepEqual(
        messages.filter((m) => steps.includes(m)),
        steps,
        `in this order, once each:\n${messages.join("\n")}`,
      );
      assert.ok(
        !messages.some((m) => m.includes("Stopping server")),
        "Probot's own SIGINT handler did not run",
      );
      assert.ok(!app.logs.some((line) => Number(line["level"]) >= 50), "no errors logged");
      // The store was closed cleanly: it opens again and nothing is left leased.
      const store = await openStore({ sqlitePath });
      t.after(() => store.close());
      assert.equal(await store.releaseLeases("signals"), 0);
    });
  }
});
