import { z } from "zod";

/** One host the egress proxy refused: where the session tried to go, how often, and who asked. */
export const EgressDenial = z.object({
  host: z.string().min(1).max(255),
  port: z.number().int().min(0).max(65_535),
  /** When it was first refused (ISO 8601). */
  at: z.string().max(40),
  count: z.number().int().positive(),
  /** The command line that asked, when the proxy could tell. */
  command: z.string().max(300).optional(),
});
export type EgressDenial = z.infer<typeof EgressDenial>;
