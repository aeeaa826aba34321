import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import type { PlanKey } from "../store/store.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { computeInboxBackoff } from "./inbox-backoff.ts";
import { RepoSettings } from "./stored-plan.ts";

/** The inbox name of loom's own parked work (no GitHub event has a dot in its name). */
export const PARKED_EVENTS = "loom.events";

/**
 * Events (and app-decided effects) for one plan that could not be committed yet, as parked in the
 * inbox. loom wrote them itself from values the reducer and the app produced, so their full typing
 * is the reducer's contract; the envelope is checked.
 */
export const ParkedEvents = z.object({
  key: z.object({
    installationId: z.number().int(),
    owner: z.string(),
    repo: z.string(),
    pr: z.number().int(),
    planPath: z.string(),
  }),
  events: z.array(z.object({ type: z.string(), at: z.number() }).loose()),
  repo: RepoSettings.optional(),
  effects: z.array(z.object({ type: z.string(), key: z.string() }).loose()).optional(),
});
export type ParkedEvents = {
  key: PlanKey;
  events: OrchestratorEvent[];
  repo?: RepoSettings;
  effects?: Effect[];
};

/**
 * Keeps events whose commit kept losing the compare-and-swap in the inbox, due after the first
 * backoff: the inbox then retries them (with backoff, counted, dead-lettered after its limit)
 * like a webhook delivery, on whichever replica claims them, after a restart too.
 */
export async function parkEvents(deps: EngineDeps, parked: ParkedEvents, reason: string): Promise<string> {
  const now = deps.now();
  const id = `${PARKED_EVENTS}:${randomUUID()}`;
  await deps.store.recordDelivery({
    id,
    name: PARKED_EVENTS,
    payload: parked,
    receivedAt: now,
    availableAt: now + computeInboxBackoff(1),
    lastError: reason,
    installationId: parked.key.installationId,
  });
  deps.log.warn(
    { id, plan: parked.key, events: parked.events.map((event) => event.type), reason },
    "events parked in the inbox; they are applied again later",
  );
  return id;
}
