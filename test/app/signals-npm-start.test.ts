import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { writeEnvFile } from "../../app/setup/write-env-file.ts";
import { freePort, freshCheckout, npmStart, stop, waitFor } from "../e2e/npm-start.ts";
import { createPrivateKey } from "../support/create-private-key.ts";

/**
 * `npm start` under a supervisor: the signal goes to npm's process, not to node. npm passes SIGINT
 * and SIGTERM on to its child, the shell running the script; the script `exec`s node, so that child
 * is loom itself (dash, Debian's `sh`, does not exec a `-c` command by itself: without `exec` the
 * shell died of the signal and left node serving, orphaned).
 */
async function startApp(t: { after: (fn: () => Promise<void>) => void }) {
  const checkout = await freshCheckout();
  const port = await freePort();
  // What the setup page leaves behind (the same writer), plus where to listen and a GitHub that
  // refuses connections: the App idles.
  writeEnvFile(path.join(checkout, ".env"), {
    APP_ID: "1",
    PRIVATE_KEY: createPrivateKey(),
    WEBHOOK_SECRET: "npm-start-signals",
    GHE_HOST: "127.0.0.1:9",
    GHE_PROTOCOL: "http",
    HOST: "127.0.0.1",
    PORT: String(port),
    NO_SMEE_SETUP: "true",
    LOG_FORMAT: "json",
    LOOM_BOT_LOGIN: "loom[bot]",
  });
  const run = npmStart(checkout);
  t.after(async () => {
    await stop(run);
    await rm(checkout, { recursive: true, force: true });
  });
  await waitFor(`http://127.0.0.1:${port}/ping`, (status) => status === 200, run);
  // The log line may reach this process after the answer to /ping (bounded: 100 × 50 ms).
  const findListening = () =>
    run
      .output()
      .split("\n")
      .find((line) => line.startsWith("{") && line.includes('"msg":"Listening on'));
  for (let attempt = 0; attempt < 100 && findListening() === undefined; attempt++) await sleep(50);
  const listening = findListening();
  const nodePid = Number((JSON.parse(listening ?? "{}") as { pid?: unknown }).pid);
  assert.ok(Number.isInteger(nodePid) && nodePid !== run.child.pid, `node's pid:\n${run.output()}`);
  return { run, nodePid };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The `msg` of every JSON log line, in order. */
function messages(output: string): string[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => String((JSON.parse(line) as { msg?: unknown }).msg));
}

const CASES = [
  { name: "SIGTERM to npm's process (a supervisor)", signal: "SIGTERM", group: false },
  { name: "SIGINT to npm's process", signal: "SIGINT", group: false },
  { name: "Ctrl-C in a terminal (SIGINT to npm's process group)", signal: "SIGINT", group: true },
] as const;

describe("npm start stops cleanly on a signal sent to npm", { timeout: 120_000, concurrency: true }, () => {
  for (const { name, signal, group } of CASES) {
    it(`${name}: node drains, exits and leaves nothing behind within 10 s`, async (t) => {
      const { run, nodePid } = await startApp(t);
      const npmPid = run.child.pid!;
      process.kill(group ? -npmPid : npmPid, signal);
      // Bounded: 100 × 100 ms.
      for (let attempt = 0; attempt < 100 && alive(nodePid); attempt++) await sleep(100);
      assert.ok(!alive(nodePid), `node (${nodePid}) still runs 10 s after ${signal}:\n${run.output()}`);
      assert.equal(await run.exited, 0, `npm exits 0 after a clean stop:\n${run.output()}`);
      const said = messages(run.output());
      assert.deepEqual(
        said.filter((m) => m.startsWith("loom stop") || m.startsWith("loom forced")),
        [`loom stopping on ${signal}`, "loom stopped"],
        `drained once, not forced:\n${run.output()}`,
      );
      assert.ok(said.includes("released this worker's leases"), run.output());
    });
  }
});
