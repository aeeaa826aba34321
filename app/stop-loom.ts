import type { Engine } from "./engine/create-engine.ts";
import type { Store } from "./store/store.ts";

/** The log calls shutdown makes (pino's `(data, message)`; `console` works too). */
export type ShutdownLog = {
  info(data: object, message: string): void;
  error(data: object, message: string): void;
};

/**
 * Stops an engine: its work in flight gets `graceMs` to finish, then its GitHub requests are
 * abandoned (`abandoned`: that happened). An engine on this thread (`stopsWithGrace`), or the drain
 * thread running one (`startDrainThread`).
 */
export type EngineStopper = { stop(graceMs: number): Promise<{ abandoned: boolean }> };

/** What a running loom holds; filled in as `main.ts` starts it (a signal may come before all is up). */
export type RunningLoom = {
  store: Store;
  workerId: string;
  engine: EngineStopper | null;
  /** Probot's HTTP server (webhooks, /healthz, /metrics), and the metrics port's if any. */
  server: { stop(): Promise<void> } | null;
  log: ShutdownLog | null;
};

/**
 * How long the work in flight may go on after a stop before its GitHub requests are abandoned
 * (it is then left leased and handed on): a healthy GitHub answers well within it, and it leaves
 * most of `SHUTDOWN_DEADLINE_MS` for releasing leases and closing the store.
 */
export const STOP_GRACE_MS = 2_000;

/**
 * Stops a running loom in the order that loses nothing: stop taking webhooks (requests in flight are
 * answered and recorded), stop the engine (the work in flight gets `graceMs` to finish; then its
 * GitHub requests are abandoned and what it had claimed stays leased), release whatever this
 * worker still leases (another replica, or this one restarted, takes it at once), close the
 * store. Each step is logged; a failing step is logged and the next one still runs. Resolves true
 * when every step succeeded.
 */
export async function stopLoom(
  loom: RunningLoom,
  log: ShutdownLog,
  graceMs: number = STOP_GRACE_MS,
): Promise<boolean> {
  let ok = true;
  const step = async (done: string, work: () => Promise<object | void>) => {
    try {
      const data = await work();
      log.info(data ?? {}, done);
    } catch (error) {
      ok = false;
      log.error({ err: error }, `shutdown: could not ${done.replace(/^\S+ /, "")}`);
    }
  };
  const { server, engine } = loom;
  if (server !== null) await step("stopped taking webhooks", () => server.stop());
  if (engine !== null)
    await step("stopped the engine; the work in flight is finished", () => engine.stop(graceMs));
  await step("released this worker's leases", async () => ({
    released: await loom.store.releaseLeases(loom.workerId),
    workerId: loom.workerId,
  }));
  await step("closed the store", () => loom.store.close());
  return ok;
}

/**
 * An engine on this thread as an `EngineStopper`: `engine.stop()`, aborting `halt` (the engine's
 * `stopping`, its Octokit's fetch) if it has not finished within the grace.
 */
export function stopsWithGrace(engine: Pick<Engine, "stop">, halt: AbortController): EngineStopper {
  return {
    async stop(graceMs) {
      const timer = setTimeout(() => halt.abort(), graceMs);
      try {
        await engine.stop();
      } finally {
        clearTimeout(timer);
      }
      return { abandoned: halt.signal.aborted };
    },
  };
}

/** Until Probot's logger exists (a signal during start-up): plain lines on the console. */
export const consoleShutdownLog: ShutdownLog = {
  info: (_data, message) => console.log(message),
  error: (data, message) => console.error(message, data),
};
