import { z } from "zod";

/** What the webhook thread tells the drain thread. */
export const ToDrain = z.discriminatedUnion("type", [
  /**
   * What came in since the last news (one message for a burst): signed deliveries by event name
   * (counted as received), and whether one was recorded (`wake`: drain soon).
   */
  z.object({
    type: z.literal("news"),
    received: z.record(z.string(), z.number().int().positive()),
    wake: z.boolean(),
  }),
  /** A scrape: answer with the drain's metrics. */
  z.object({ type: z.literal("metrics"), id: z.number().int() }),
  /** Stop taking work, finish what is in flight (within `graceMs`), close the store, answer `stopped`. */
  z.object({ type: z.literal("stop"), graceMs: z.number().int().nonnegative() }),
]);
export type ToDrain = z.infer<typeof ToDrain>;

/** What the drain thread answers. */
export const FromDrain = z.discriminatedUnion("type", [
  /** The engine is running. */
  z.object({ type: z.literal("ready") }),
  z.object({ type: z.literal("metrics"), id: z.number().int(), contentType: z.string(), text: z.string() }),
  z.object({ type: z.literal("metrics-failed"), id: z.number().int(), message: z.string() }),
  /**
   * `ok`: every step of the stop succeeded (failures were logged by the drain thread);
   * `abandoned`: GitHub requests still in flight after the grace were abandoned.
   */
  z.object({ type: z.literal("stopped"), ok: z.boolean(), abandoned: z.boolean() }),
]);
export type FromDrain = z.infer<typeof FromDrain>;

/** The drain thread's start-up data: the environment `npm start` settled on (`.env` applied). */
export const DrainData = z.object({
  env: z.record(z.string(), z.string()),
  /** This replica's name in leases (the same as the webhook thread's). */
  workerId: z.string().min(1),
  /** SQLite: the webhook thread's deliveries are written first (`SqliteWriteGate`). */
  writeGate: z.instanceof(SharedArrayBuffer),
});
export type DrainData = z.infer<typeof DrainData>;
