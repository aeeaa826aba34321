/**
 * Two connections of one process to one SQLite file (`npm start`'s webhook thread and drain thread)
 * share this, so that the webhook thread's writes (recording deliveries, which GitHub waits for)
 * come first: while a batch of deliveries waits for the write lock, the other connection starts no
 * new write. Without it the drain thread, writing transaction after transaction and waiting for the
 * lock inside SQLite, takes it again as soon as it is free, and the deliveries wait for seconds.
 */
export type SqliteWriteGate = {
  /** One 32-bit cell: how many batches of the priority side are waiting for the write lock. */
  shared: SharedArrayBuffer;
  /** `priority`: records deliveries; `yield`: lets it go first. */
  role: "priority" | "yield";
};

/** A gate for two connections (pass the same buffer to both, each with its role). */
export function createSqliteWriteGate(): SharedArrayBuffer {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
}

export type WriteGateSide = {
  /** Priority side: a batch is waiting for the write lock. */
  raise(): void;
  /** Priority side: that batch is done (committed or failed). */
  lower(): void;
  /** Yielding side, before it takes the write lock: waits while a batch waits (at most `maxWaitMs`). */
  yieldToPriority(): void;
};

const NONE: WriteGateSide = {
  raise: () => undefined,
  lower: () => undefined,
  yieldToPriority: () => undefined,
};

/** This connection's side of `gate` (none: no gate, every call does nothing). */
export function openWriteGate(gate: SqliteWriteGate | undefined, maxWaitMs: number): WriteGateSide {
  if (gate === undefined) return NONE;
  const cells = new Int32Array(gate.shared);
  if (gate.role === "priority")
    return {
      ...NONE,
      raise: () => void Atomics.add(cells, 0, 1),
      lower: () => {
        Atomics.sub(cells, 0, 1);
        Atomics.notify(cells, 0);
      },
    };
  return {
    ...NONE,
    // Blocks this thread (the drain thread's: nothing waits for it but its own work), woken as
    // soon as the batch is done; bounded, should the other side never lower it.
    yieldToPriority: () => {
      const deadline = performance.now() + maxWaitMs;
      for (let waiting = Atomics.load(cells, 0); waiting > 0; waiting = Atomics.load(cells, 0)) {
        const left = deadline - performance.now();
        if (left <= 0) return;
        Atomics.wait(cells, 0, waiting, Math.min(left, 50));
      }
    },
  };
}
