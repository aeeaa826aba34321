import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { openStore } from "../../app/store/open-store.ts";
import { createSqliteStore } from "../../app/store/sqlite-store.ts";

/**
 * Under `npm start` the webhook thread records deliveries while the drain thread (another
 * connection to the same file) writes too. A delivery that finds the write lock taken waits for
 * it on the event loop: the thread goes on answering (here: its timers run) and the delivery is on
 * disk once the lock is free.
 */
describe("recording a delivery while another connection holds SQLite's write lock", () => {
  function setUp(t: { after: (fn: () => void) => void }) {
    const dir = mkdtempSync(join(tmpdir(), "loom-record-wait-"));
    const path = join(dir, "loom.sqlite");
    const other = new DatabaseSync(path, { timeout: 10_000 });
    t.after(() => {
      if (other.isOpen) other.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return { path, other };
  }
  const delivery = (id: string) => ({ id, name: "issue_comment", payload: { id }, receivedAt: 1 });

  it("keeps the event loop turning, and records once the lock is free", async (t) => {
    const { path, other } = setUp(t);
    const store = await openStore({ sqlitePath: path });
    t.after(() => void store.close());
    other.exec("BEGIN IMMEDIATE");
    let settled: boolean | null = null;
    const recorded = store.recordDelivery(delivery("d-1")).then((fresh) => (settled = fresh));
    const second = store.recordDelivery(delivery("d-2"));
    let turns = 0;
    for (let i = 0; i < 20; i++) {
      await sleep(5);
      turns += 1;
    }
    assert.equal(turns, 20, "timers ran while the lock was taken");
    assert.equal(settled, null, "not recorded while the lock is taken");
    other.exec("COMMIT");
    assert.equal(await recorded, true);
    assert.equal(await second, true, "deliveries arriving meanwhile join the batch");
    const rows = other.prepare("SELECT id FROM loom_deliveries ORDER BY id").all();
    assert.deepEqual(
      rows.map((row) => row["id"]),
      ["d-1", "d-2"],
    );
  });

  it("gives up after the busy timeout, and records again once the lock is free", async (t) => {
    const { path, other } = setUp(t);
    const store = createSqliteStore({ path, busyTimeoutMs: 50 });
    t.after(() => void store.close());
    await store.migrate();
    other.exec("BEGIN IMMEDIATE");
    await assert.rejects(store.recordDelivery(delivery("late")), /write lock was not free within 50 ms/);
    other.exec("COMMIT");
    assert.equal(await store.recordDelivery(delivery("late")), true);
  });
});
