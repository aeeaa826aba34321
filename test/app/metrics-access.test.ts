import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createIdleApp, type AppProcess } from "../e2e/app-process.ts";
import { freePort } from "../support/free-port.ts";
import { issueCommentPayload } from "../support/webhook-payloads.ts";

const SECRET = "metrics-access-secret";
const TOKEN = "metrics-access-token-0123";

/** The real `node app/main.ts` with `env` (GitHub refuses connections), started. */
async function startApp(t: { after: (fn: () => Promise<void>) => void }, env: Record<string, string>) {
  const { app } = createIdleApp((fn) => t.after(fn), { name: "metrics-access", webhookSecret: SECRET, env });
  await app.start();
  return app;
}

function scrape(url: string | URL, token?: string): Promise<Response> {
  return fetch(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
}

/** One signed `/loom` comment, answered 200. */
async function sendComment(app: AppProcess): Promise<void> {
  const body = JSON.stringify(
    issueCommentPayload({ number: 1, body: "/loom retry a", sender: { login: "alice" } }),
  );
  const response = await fetch(app.webhookUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "issue_comment",
      "x-github-delivery": "metrics-access-1",
      "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`,
    },
    body,
  });
  assert.equal(response.status, 200, await response.text());
}

/** A sample's value in Prometheus' text format (0 when absent). */
function sample(text: string, line: RegExp): number {
  return Number(line.exec(text)?.[1] ?? 0);
}

describe(
  "where /metrics is served (METRICS_PORT, METRICS_TOKEN)",
  { timeout: 120_000, concurrency: true },
  () => {
    it("by default nowhere: the webhook port answers 404", async (t) => {
      const app = await startApp(t, {});
      assert.equal((await scrape(new URL("/metrics", app.webhookUrl))).status, 404);
      const said = () =>
        app.logs.some((line) => line["msg"] === "metrics not served: set METRICS_PORT or METRICS_TOKEN");
      // Bounded: 600 × 50 ms for the drain thread to be up (the line comes then).
      for (let attempt = 0; attempt < 600 && !said(); attempt++) await sleep(50);
      assert.ok(said(), "the log says how to turn them on");
    });

    it("with METRICS_TOKEN, on the webhook port to that bearer token only, both threads' metrics counting", async (t) => {
      const app = await startApp(t, { METRICS_TOKEN: TOKEN });
      const url = new URL("/metrics", app.webhookUrl);
      const refused = await scrape(url);
      assert.equal(refused.status, 401);
      assert.match(refused.headers.get("www-authenticate") ?? "", /^Bearer /);
      assert.doesNotMatch(await refused.text(), /loom_|process_/);
      assert.equal((await scrape(url, `${TOKEN}x`)).status, 401, "a wrong token");
      await sendComment(app);
      // The webhook thread counts it received; the drain thread processes it.
      const processed = (text: string) =>
        [...text.matchAll(/^loom_webhook_deliveries_processed_total\{outcome="\w+"\} (\d+)$/gm)].reduce(
          (sum, match) => sum + Number(match[1]),
          0,
        );
      let text = "";
      // Bounded: 200 × 100 ms.
      for (let attempt = 0; attempt < 200; attempt++) {
        const response = await scrape(url, TOKEN);
        assert.equal(response.status, 200);
        text = await response.text();
        if (processed(text) >= 1) break;
        await sleep(100);
      }
      assert.equal(
        sample(text, /^loom_webhook_deliveries_received_total\{event="issue_comment"\} (\d+)$/m),
        1,
      );
      assert.equal(processed(text), 1, text);
      assert.match(text, /^loom_inbox_depth \d+$/m, "the store's depth, read by the drain thread");
      assert.match(text, /^process_resident_memory_bytes \d+/m, "the process's own, from the webhook thread");
      assert.equal(
        text.match(/^# TYPE /gm)?.length,
        new Set(text.match(/^# TYPE \S+/gm)).size,
        "each metric once",
      );
      for (const line of app.logs)
        assert.doesNotMatch(JSON.stringify(line), new RegExp(TOKEN), "never logged");
    });

    it("with METRICS_PORT, on that port (127.0.0.1) and no longer on the webhook port", async (t) => {
      const port = await freePort();
      const app = await startApp(t, { METRICS_PORT: String(port) });
      const own = await scrape(`http://127.0.0.1:${port}/metrics`);
      assert.equal(own.status, 200);
      assert.match(await own.text(), /^loom_outbox_depth \d+$/m);
      assert.equal((await scrape(`http://127.0.0.1:${port}/healthz`)).status, 404, "metrics only");
      assert.equal((await scrape(new URL("/metrics", app.webhookUrl))).status, 404);
      assert.equal((await scrape(new URL("/metrics", app.webhookUrl), "any")).status, 404);
    });
  },
);
