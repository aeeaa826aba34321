import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { sign } from "@octokit/webhooks-methods";
import pg from "pg";
import { createAppProcess } from "../test/e2e/app-process.ts";
import { freePort } from "../test/support/free-port.ts";
import { issueCommentPayload } from "../test/support/webhook-payloads.ts";
import { percentile } from "./bench-hop.ts";
import { record } from "./targets.ts";

const SECRET = "bench-ack";
const RATE = 200;
const METRICS_TOKEN = "bench-ack-metrics-token";
/** Issue 13's target for the ack p99, on each store. */
const TARGET_MS = 20;
/** How long deliveries are sent (2 s with `--quick`). */
const SECONDS = 5;
const POSTGRES = process.env["LOOM_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * The real App (`node app/main.ts`) answering signed webhooks sent at 200 a second for 5 s (2 s
 * with `--quick`): the time from sending a delivery to its 2xx (loom records it, then answers; the
 * work comes after, in the App's drain thread), on SQLite and on PostgreSQL, each p99 against the
 * 20 ms target. GitHub itself refuses connections here, so the drain thread parks each delivery
 * quickly: the acks share the machine's cores with that work, as in production.
 */
export async function benchAck(options: { quick?: boolean } = {}): Promise<void> {
  const seconds = options.quick ? 2 : SECONDS;
  console.log(
    `| store | deliveries | rate | ack p50 | ack p99 | max | non-2xx | p99 ≤ ${TARGET_MS} ms | webhook thread's loop lag p99 / max |`,
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---|---:|");
  const measured: { store: string; p99: number; failed: number }[] = [];
  for (const store of ["SQLite", "PostgreSQL"] as const) {
    const result = await measure(store, seconds);
    if (result !== null) measured.push({ store, ...result });
  }
  record("ack", {
    value: measured
      .map(
        ({ store, p99, failed }) =>
          `${store} ${p99.toFixed(1)} ms${failed > 0 ? ` (${failed} non-2xx)` : ""}`,
      )
      .join(" / "),
    pass: measured.length === 2 && measured.every(({ p99, failed }) => failed === 0 && p99 <= TARGET_MS),
  });
}

async function measure(
  store: "SQLite" | "PostgreSQL",
  seconds: number,
): Promise<{ p99: number; failed: number } | null> {
  const dir = mkdtempSync(join(tmpdir(), "loom-bench-ack-"));
  const database = `loom_bench_ack_${process.pid}`;
  let databaseUrl: string | undefined;
  if (store === "PostgreSQL") {
    const admin = new pg.Client({ connectionString: POSTGRES });
    try {
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
    } catch (error) {
      console.log(`| PostgreSQL | skipped: ${(error as Error).message} |`);
      return null;
    } finally {
      await admin.end().catch(() => undefined);
    }
    const url = new URL(POSTGRES);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
  }
  const app = createAppProcess({
    githubUrl: `http://127.0.0.1:${await freePort()}`,
    webhookSecret: SECRET,
    appId: 1,
    botLogin: "loom[bot]",
    ...(databaseUrl ? { databaseUrl } : { sqlitePath: join(dir, "loom.sqlite") }),
    workerId: "bench-ack",
    pollMs: 1_000,
    reconcileMs: 600_000,
    cwd: dir,
    env: { METRICS_TOKEN: METRICS_TOKEN },
  });
  try {
    await app.start();
    // Waits for the drain thread to be up (a scrape does), and starts the loop-lag window afresh.
    await readLoopLag(app.webhookUrl);
    const times: number[] = [];
    let failed = 0;
    const sends: Promise<void>[] = [];
    const t0 = performance.now();
    for (let n = 0; n < RATE * seconds; n++) {
      const due = t0 + (n * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      sends.push(
        send(app.webhookUrl, n).then(
          (ms) => void times.push(ms),
          () => void failed++,
        ),
      );
    }
    await Promise.all(sends);
    const lag = await readLoopLag(app.webhookUrl);
    const p99 = percentile(times, 99);
    const pass = failed === 0 && p99 <= TARGET_MS;
    console.log(
      `| ${store} | ${RATE * seconds} | ${RATE}/s | ${percentile(times, 50).toFixed(1)} ms | ${p99.toFixed(1)} ms | ${Math.max(...times).toFixed(1)} ms | ${failed} | ${pass ? "✅ pass" : "❌ miss"} | ${lag.p99.toFixed(1)} / ${lag.max.toFixed(1)} ms |`,
    );
    return { p99, failed };
  } finally {
    await app.kill();
    rmSync(dir, { recursive: true, force: true });
    if (databaseUrl) {
      const admin = new pg.Client({ connectionString: POSTGRES });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    }
  }
}

/**
 * The webhook thread's event-loop lag since the previous scrape (prom-client's
 * `nodejs_eventloop_lag_*`, reset at each scrape), in ms: what the drain would add to the acks if
 * it still ran on that loop, and what the machine itself adds (a thread waiting for a core).
 */
async function readLoopLag(webhookUrl: string): Promise<{ p99: number; max: number }> {
  const response = await fetch(new URL("/metrics", webhookUrl), {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}: ${text}`);
  const read = (name: string) => 1000 * Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  return { p99: read("nodejs_eventloop_lag_p99_seconds"), max: read("nodejs_eventloop_lag_max_seconds") };
}

/** One signed `issue_comment.created` (a `/loom` command), timed from send to answer. */
async function send(url: string, n: number): Promise<number> {
  const body = JSON.stringify(
    issueCommentPayload({
      number: 1 + (n % 50),
      body: "/loom retry a",
      sender: { login: "alice" },
      commentId: 10_000 + n,
    }),
  );
  const signature = await sign(SECRET, body);
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "issue_comment",
      "x-github-delivery": `bench-ack-${n}-${started}`,
      "x-hub-signature-256": signature,
    },
    body,
  });
  await response.arrayBuffer();
  if (response.status >= 300) throw new Error(`webhook answered ${response.status}`);
  return performance.now() - started;
}
