import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import { createSqliteWriteGate, openWriteGate } from "../../app/store/sqlite-write-gate.ts";

/** The yielding side in a thread of its own (it blocks while it yields), saying when it may write. */
function startYielder(shared: SharedArrayBuffer, maxWaitMs: number): { mayWrite: Promise<number> } {
  const gateUrl = new URL("../../app/store/sqlite-write-gate.ts", import.meta.url).href;
  const worker = new Worker(
    `const { workerData, parentPort } = require("node:worker_threads");
import(workerData.gateUrl).then(({ openWriteGate }) => {
  const started = performance.now();
  openWriteGate({ shared: workerData.shared, role: "yield" }, workerData.maxWaitMs).yieldToPriority();
  parentPort.postMessage(performance.now() - started);
});`,
    { eval: true, workerData: { shared, maxWaitMs, gateUrl } },
  );
  const mayWrite = new Promise<number>((resolve, reject) => {
    worker.once("message", (waited: number) => resolve(waited));
    worker.once("error", reject);
  });
  void mayWrite.finally(() => worker.terminate());
  return { mayWrite };
}

describe("the SQLite write gate between the webhook thread and the drain thread", () => {
  it("lets the drain thread write at once while no delivery waits", async () => {
    const shared = createSqliteWriteGate();
    await startYielder(shared, 10_000).mayWrite;
  });

  it("holds the drain thread's next write while a batch of deliveries waits, and frees it when done", async () => {
    const shared = createSqliteWriteGate();
    const priority = openWriteGate({ shared, role: "priority" }, 10_000);
    priority.raise();
    const { mayWrite } = startYielder(shared, 10_000);
    let written = false;
    void mayWrite.then(() => (written = true));
    await sleep(200);
    assert.equal(written, false, "still held");
    priority.lower();
    await mayWrite;
  });

  it("holds it no longer than its bound, should the batch never finish", async () => {
    const shared = createSqliteWriteGate();
    openWriteGate({ shared, role: "priority" }, 10_000).raise();
    const waited = await startYielder(shared, 100).mayWrite;
    assert.ok(waited >= 100, `waited ${waited} ms`);
  });

  it("does nothing on the side that does not play the role", () => {
    const shared = createSqliteWriteGate();
    openWriteGate({ shared, role: "priority" }, 10_000).raise();
    // The priority side itself never waits; no gate at all never waits either.
    openWriteGate({ shared, role: "priority" }, 10_000).yieldToPriority();
    openWriteGate(undefined, 10_000).yieldToPriority();
    openWriteGate({ shared, role: "yield" }, 10_000).lower();
    assert.equal(new Int32Array(shared)[0], 1, "only the priority side moves the count");
  });
});
