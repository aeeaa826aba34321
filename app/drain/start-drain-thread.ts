import { Worker } from "node:worker_threads";
import type { ReadMetrics } from "../metrics/serve-metrics.ts";
import { FromDrain, type DrainData, type ToDrain } from "./drain-messages.ts";

/** How long a scrape waits for the drain thread's metrics. */
const METRICS_TIMEOUT_MS = 5_000;
/** After `stopped`, how long the thread may take to end by itself before it is terminated. */
const EXIT_GRACE_MS = 1_000;

/** Thrown when the drain thread fails or ends without being asked. */
export class DrainThreadError extends Error {}

export type DrainThread = {
  /** Resolves once the engine runs; rejects when the thread failed to start. */
  ready: Promise<void>;
  /** A new delivery was recorded: drain soon. */
  wake(): void;
  /** A signed delivery came in, by event (counted in the drain thread's metrics). */
  received(event: string): void;
  /** The drain thread's metrics, for a scrape. */
  readMetrics: ReadMetrics;
  /**
   * Stops the engine (it finishes its work in flight within `graceMs`, then abandons its GitHub
   * requests), closes the thread's store and ends the thread. Rejects when a step failed.
   */
  stop(graceMs: number): Promise<{ abandoned: boolean }>;
};

/** The drain thread's entry. */
export const DRAIN_THREAD = new URL("./drain-thread.ts", import.meta.url);

/**
 * Starts `script` (`drain-thread.ts`) in a worker thread with `data`. `onFailure` is called once if
 * the thread fails or ends before `stop` was asked (the process should then stop: nothing would
 * drain).
 */
export function startDrainThread(
  data: DrainData,
  onFailure: (error: DrainThreadError) => void,
  script: URL = DRAIN_THREAD,
): DrainThread {
  const worker = new Worker(script, { workerData: data });
  const send = (message: ToDrain) => worker.postMessage(message);
  let stopRequested = false;
  let stopped: ((outcome: { ok: boolean; abandoned: boolean }) => void) | null = null;
  let exited = false;
  const exit = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  const pending = new Map<
    number,
    { resolve: (m: { contentType: string; text: string }) => void; reject: (e: Error) => void }
  >();
  let nextId = 0;
  let readyNow: () => void = () => undefined;
  let failStart: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    readyNow = resolve;
    failStart = reject;
  });
  // A caller that never awaits `ready` is told through `onFailure`.
  ready.catch(() => undefined);

  let failed = false;
  const fail = (error: DrainThreadError) => {
    if (failed) return;
    failed = true;
    failStart(error);
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
    stopped?.({ ok: false, abandoned: true });
    if (!stopRequested) onFailure(error);
  };
  // Deliveries of one turn of the event loop travel as one message: a burst costs one.
  let news: { received: Record<string, number>; wake: boolean } | null = null;
  const tell = (add: (next: { received: Record<string, number>; wake: boolean }) => void) => {
    if (news === null) {
      news = { received: {}, wake: false };
      setImmediate(flush);
    }
    add(news);
  };
  const flush = () => {
    if (news === null || exited) return;
    send({ type: "news", ...news });
    news = null;
  };
  worker.on("message", (raw: unknown) => {
    const message = FromDrain.parse(raw);
    switch (message.type) {
      case "ready":
        readyNow();
        return;
      case "metrics":
      case "metrics-failed": {
        const waiting = pending.get(message.id);
        pending.delete(message.id);
        if (message.type === "metrics") waiting?.resolve(message);
        else waiting?.reject(new DrainThreadError(`the drain thread's metrics failed: ${message.message}`));
        return;
      }
      case "stopped":
        stopped?.(message);
        return;
    }
  });
  worker.on("error", (error) => fail(new DrainThreadError("the drain thread failed", { cause: error })));
  worker.on("exit", (code) => {
    exited = true;
    // Ended before it said `stopped` (its messages come before its exit): the stop did not finish.
    stopped?.({ ok: false, abandoned: true });
    if (!stopRequested) fail(new DrainThreadError(`the drain thread ended unexpectedly (exit code ${code})`));
  });

  return {
    ready,
    wake: () => tell((next) => (next.wake = true)),
    received: (event) => tell((next) => (next.received[event] = (next.received[event] ?? 0) + 1)),
    // A scrape during start-up waits for the thread (its start-up has no deadline of its own here).
    readMetrics: () =>
      ready.then(
        () =>
          new Promise((resolve, reject) => {
            if (exited) return reject(new DrainThreadError("the drain thread has ended"));
            const id = nextId++;
            const timer = setTimeout(() => {
              pending.delete(id);
              reject(
                new DrainThreadError(
                  `the drain thread did not answer a scrape within ${METRICS_TIMEOUT_MS} ms`,
                ),
              );
            }, METRICS_TIMEOUT_MS);
            pending.set(id, {
              resolve: (answer) => {
                clearTimeout(timer);
                resolve(answer);
              },
              reject: (error) => {
                clearTimeout(timer);
                reject(error);
              },
            });
            // What was received before the scrape is counted in it.
            flush();
            send({ type: "metrics", id });
          }),
      ),
    stop: async (graceMs) => {
      if (stopRequested) throw new DrainThreadError("the drain thread was already asked to stop");
      stopRequested = true;
      if (exited) return { abandoned: false };
      const { ok, abandoned } = await new Promise<{ ok: boolean; abandoned: boolean }>((resolve) => {
        stopped = resolve;
        flush();
        send({ type: "stop", graceMs });
      });
      const timer = setTimeout(() => void worker.terminate(), EXIT_GRACE_MS);
      await exit;
      clearTimeout(timer);
      if (!ok) throw new DrainThreadError("the drain thread stopped with errors (logged above)");
      return { abandoned };
    },
  };
}
