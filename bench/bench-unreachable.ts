import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { sign } from "@octokit/webhooks-methods";
import { openStore } from "../app/store/open-store.ts";
import { createAppProcess, type AppProcess } from "../test/e2e/app-process.ts";
import { pullRequestPayload } from "../test/support/webhook-payloads.ts";
import { freePort } from "../test/support/free-port.ts";
import { record } from "./targets.ts";

const SECRET = "bench-unreachable";
const WORKER = "bench-unreachable";
/** Deliveries that need GitHub, sent at once: each holds the worker in turn. */
const DELIVERIES = 3;
const WAIT_MS = 120_000;

/**
 * The real App (`node app/main.ts`) with GitHub unreachable, two ways: a loopback port nothing
 * listens on (connections refused) and a server that accepts requests and never answers. Prints
 * how long one delivery held the worker (targets: ≤ 10 s, the others keep flowing) and how long
 * SIGTERM took to exit while a GitHub request hung (target: ≤ 10 s, exit 0, leases released,
 * nothing lost).
 */
export async function benchUnreachable(): Promise<void> {
  console.log(
    "| GitHub | held per delivery (target ≤ 10 s) | SIGTERM to exit (target ≤ 10 s) | exit code | leases left | deliveries kept |",
  );
  console.log("|---|---:|---:|---:|---:|---:|");
  const silent = await startSilentGitHub();
  const outcomes: Outcome[] = [];
  try {
    for (const [name, url] of [
      ["refuses connections", `http://127.0.0.1:${await freePort()}`],
      ["never answers", silent.url],
    ] as const) {
      const outcome = await measure(name, url, silent);
      outcomes.push(outcome);
      console.log(outcome.line);
    }
  } finally {
    silent.close();
  }
  const held = Math.max(...outcomes.map((o) => o.heldSeconds));
  const stop = Math.max(...outcomes.map((o) => o.stopSeconds));
  record("unreachable", {
    value: `${held.toFixed(2)} s; ${stop.toFixed(2)} s`,
    pass: held <= 10 && stop <= 10 && outcomes.every((o) => o.clean),
  });
}

type Outcome = { line: string; heldSeconds: number; stopSeconds: number; clean: boolean };

async function measure(name: string, githubUrl: string, silent: SilentGitHub): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), "loom-bench-unreachable-"));
  const sqlitePath = join(dir, "loom.sqlite");
  const app = createAppProcess({
    githubUrl,
    webhookSecret: SECRET,
    appId: 1,
    botLogin: "loom[bot]",
    sqlitePath,
    workerId: WORKER,
    pollMs: 200,
    reconcileMs: 600_000,
    cwd: dir,
  });
  try {
    await app.start();
    const parked = () => app.logs.filter((line) => String(line["msg"]).startsWith("delivery failed")).length;
    const sentAt = Date.now();
    for (let n = 1; n <= DELIVERIES; n++) await sendPullOpened(app, n);
    const heldSeconds = (await waitFor(() => parked() >= DELIVERIES))
      ? (lastParkedAt(app) - sentAt) / DELIVERIES / 1000
      : Number.POSITIVE_INFINITY;
    const held = Number.isFinite(heldSeconds)
      ? `${heldSeconds.toFixed(2)} s`
      : `> ${WAIT_MS / 1000 / DELIVERIES} s`;

    // One more delivery; SIGTERM once its GitHub request is in flight (or at once if refused).
    const before = silent.requests();
    await sendPullOpened(app, DELIVERIES + 1);
    if (githubUrl === silent.url) await waitFor(() => silent.requests() > before);
    const t0 = performance.now();
    const exit = await app.stop("SIGTERM", 30_000);
    const stopSeconds = (performance.now() - t0) / 1000;
    const store = await openStore({ sqlitePath });
    try {
      const leases = await store.releaseLeases(WORKER);
      let kept = 0;
      for (let n = 1; n <= DELIVERIES + 1; n++) {
        const delivery = await store.getDelivery(`bench-${n}`);
        if (delivery !== null && delivery.completedAt === null) kept++;
      }
      return {
        line: `| ${name} | ${held} | ${stopSeconds.toFixed(2)} s | ${exit.code ?? exit.signal} | ${leases} | ${kept} of ${DELIVERIES + 1} |`,
        heldSeconds,
        stopSeconds,
        clean: exit.code === 0 && leases === 0 && kept === DELIVERIES + 1,
      };
    } finally {
      await store.close();
    }
  } finally {
    await app.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

function lastParkedAt(app: AppProcess): number {
  const times = app.logs
    .filter((line) => String(line["msg"]).startsWith("delivery failed"))
    .map((line) => Number(line["time"]));
  return times[DELIVERIES - 1] ?? Number.NaN;
}

async function sendPullOpened(app: AppProcess, n: number): Promise<void> {
  const body = JSON.stringify(
    pullRequestPayload("opened", { number: n, headSha: n.toString(16).padStart(40, "0") }),
  );
  const response = await fetch(app.webhookUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "pull_request",
      "x-github-delivery": `bench-${n}`,
      "x-hub-signature-256": await sign(SECRET, body),
    },
    body,
  });
  if (response.status >= 300)
    throw new Error(`webhook answered ${response.status}: ${await response.text()}`);
}

async function waitFor(done: () => boolean): Promise<boolean> {
  const until = Date.now() + WAIT_MS;
  while (!done()) {
    if (Date.now() > until) return false;
    await sleep(50);
  }
  return true;
}

type SilentGitHub = { url: string; requests(): number; close(): void };

/** Accepts connections and reads requests, never answers. */
async function startSilentGitHub(): Promise<SilentGitHub> {
  let count = 0;
  const open: ServerResponse[] = [];
  const server = createServer((_request, response) => {
    count++;
    open.push(response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: () => {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}
