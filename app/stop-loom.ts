import type { Engine } from "./engine/create-engine.ts";
import type { Store } from "./store/store.ts";

/** The log calls shutdown makes (pino's `(data, message)`; `console` works too). */
export type ShutdownLog = {
  info(data: object, message: string): void;
  error(data: object, message: string): void;
};

/** What a running loom holds; filled in as `main.ts` starts it (a signal may come before all is up). */
export type RunningLoom = {
  store: Store;
  workerId: string;
  engine: Engine | null;
  /** Probot's HTTP server (webhooks, /healthz, /metrics). */
  server: { stop(): Promise<void> } | null;
  log: ShutdownLog | null;
};

/**
 * Stops a running loom in the order that loses nothing: stop taking webhooks (requests in flight are
 * answered and recorded), stop the engine (the round in flight finishes what it claimed), release
 * whatever this worker still leases (another replica, or this one restarted, takes it at once),
 * close the store. Each step is logged; a failing step is logged and the next one still runs.
 * Resolves true when every step succeeded.
 */
export async function stopLoom(loom: RunningLoom, log: ShutdownLog): Promise<boolean> {
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
  if (engine !== null) await step("stopped the engine; the work in flight is finished", () => engine.stop());
  await step("released this worker's leases", async () => ({
    released: await loom.store.releaseLeases(loom.workerId),
    workerId: loom.workerId,
  }));
  await step("closed the store", () => loom.store.close());
  return ok;
}

/** Until Probot's logger exists (a signal during start-up): plain lines on the console. */
export const consoleShutdownLog: ShutdownLog = {
  info: (_data, message) => console.log(message),
  error: (data, message) => console.error(message, data),
};
