import { z } from "zod";
import type { InboxDelivery } from "../store/store.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { readDeliveryKeys } from "./read-delivery-keys.ts";

const Sender = z.object({ sender: z.object({ login: z.string() }) });

/**
 * Whether a delivery's work is pointless because a newer one with the same coalescing key was
 * recorded (`readDeliveryKeys`): of a burst of pushes to a pull request only the newest is
 * processed, and it reads the plans at its own head, the newest.
 *
 * Approval pinning stays safe: the newest push is judged with its own `before`, the head before
 * IT, which is not the head the plan knew, so it is never taken for loom's own merge on the
 * approved head; an untrusted plan needs a new approval, as it would after any person's push.
 * Pushes that come with loom's own bot as sender are never skipped: a chain of loom's merges is
 * then seen link by link and keeps the approval (they cost loom's own work, not anyone's input).
 */
export async function isSuperseded(deps: EngineDeps, delivery: InboxDelivery): Promise<boolean> {
  if (readDeliveryKeys(delivery.name, delivery.payload).coalesceKey === null) return false;
  const sender = Sender.safeParse(delivery.payload);
  if (sender.success && sender.data.sender.login === (await deps.getBotLogin())) return false;
  return deps.store.hasNewerDelivery(delivery.id);
}
