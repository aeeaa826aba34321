import type { IncomingMessage, ServerResponse } from "node:http";
import type { Store } from "../store/store.ts";

/** Longest a readiness probe waits for the database before calling it unreachable. */
const PING_TIMEOUT_MS = 5_000;

/**
 * `GET /healthz`: 200 `{"ok":true}` when this replica's store answers, else 503 `{"ok":false}`
 * (the database error goes to the log, never to the probe). For load balancers and Kubernetes
 * readiness probes; Probot's own `/ping` only says the process is up.
 */
export function createHealthCheck(
  store: Pick<Store, "ping">,
  onError: (error: unknown) => void = () => undefined,
): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return async (req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/healthz") return false;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
    });
    let ok = true;
    try {
      await Promise.race([store.ping(), timeout]);
    } catch (error) {
      ok = false;
      onError(error);
    } finally {
      clearTimeout(timer);
    }
    res
      .writeHead(ok ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" })
      .end(JSON.stringify(ok ? { ok: true } : { ok: false, error: "the store is unreachable" }));
    return true;
  };
}
