import { z } from "zod";

/** The pull_request actions whose work is "read the pull request's plans at its head again". */
const RELOADS = ["opened", "reopened", "synchronize"] as const;

const Installed = z.object({ installation: z.object({ id: z.number().int() }) });

const PullReload = z.object({
  action: z.enum(RELOADS),
  number: z.number().int(),
  repository: z.object({ full_name: z.string() }),
});

/** What the inbox keeps beside a delivery, read from its payload on receipt. */
export type DeliveryKeys = {
  /** The installation whose queue it waits in (null: a payload without one). */
  installationId: number | null;
  /**
   * Deliveries with the same key whose newest one makes the older ones pointless (they are
   * completed as superseded, see `isSuperseded`); null: never superseded.
   */
  coalesceKey: string | null;
};

/** A push's check suite (`requested`): what it re-reads is the repository's caller workflow. */
const PushSuite = z.object({
  action: z.literal("requested"),
  repository: z.object({ full_name: z.string() }),
});

/**
 * Reads the keys of a webhook delivery. `opened`, `reopened` and `synchronize` of one pull request
 * share a coalescing key: each one reloads the pull request's plans from the head its payload
 * carries, so after a burst of pushes the newest one does the work of all of them. So do the
 * default branch's pushes (`check_suite.requested`) of one repository: each reads the caller
 * workflow as it is then.
 */
export function readDeliveryKeys(name: string, payload: unknown): DeliveryKeys {
  const installed = Installed.safeParse(payload);
  const installationId = installed.success ? installed.data.installation.id : null;
  const push = name === "check_suite" ? PushSuite.safeParse(payload) : null;
  if (push?.success === true)
    return {
      installationId,
      coalesceKey: `check_suite:caller:${push.data.repository.full_name.toLowerCase()}`,
    };
  if (name !== "pull_request") return { installationId, coalesceKey: null };
  const reload = PullReload.safeParse(payload);
  // GitHub names are case-insensitive.
  const coalesceKey = reload.success
    ? `pull_request:reload:${reload.data.repository.full_name.toLowerCase()}#${reload.data.number}`
    : null;
  return { installationId, coalesceKey };
}
