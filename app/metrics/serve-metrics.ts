import type { IncomingMessage, ServerResponse } from "node:http";
import type { Registry } from "prom-client";

/**
 * `GET /metrics`: the registry in Prometheus' text format. Counts and timings only (no names of
 * repositories or people), so it is served without authentication, like `/healthz`; keep the port
 * off the internet or filter the path at the load balancer if that matters.
 */
export function serveMetrics(
  registry: Registry,
  onError: (error: unknown) => void = () => undefined,
): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return async (req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") return false;
    try {
      const text = await registry.metrics();
      res.writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" }).end(text);
    } catch (error) {
      onError(error);
      res.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n");
    }
    return true;
  };
}
