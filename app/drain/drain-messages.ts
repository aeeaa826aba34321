import { z } from "zod";

/** What the webhook thread tells the drain thread. */
export const ToDrain = z.discriminatedUnion("type", [
  /** A delivery was recorded: drain soon. */
  z.object({ type: z.literal("wake") }),
  /** A signed delivery came in (counted as received, by event). */
  z.object({ type: z.literal("received"), event: z.string() }),
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
});
export type DrainData = z.infer<typeof DrainData>;
