import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Registry } from "prom-client";
import { readAuthorization } from "./hide-authorization.ts";

/** Metrics in Prometheus' text format, with its content type. */
export type MetricsText = { contentType: string; text: string };
export type ReadMetrics = () => Promise<MetricsText>;

export type MetricsHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/** A registry's metrics. */
export function readRegistry(registry: Registry): ReadMetrics {
  return async () => ({ contentType: registry.contentType, text: await registry.metrics() });
}

/** Several sources served as one (their metric names must differ). */
export function joinMetrics(...sources: ReadMetrics[]): ReadMetrics {
  return async () => {
    const parts = await Promise.all(sources.map((read) => read()));
    return {
      contentType: parts[0]?.contentType ?? "text/plain",
      text: parts.map((part) => part.text.trimEnd()).join("\n") + "\n",
    };
  };
}

/**
 * `GET /metrics`: Prometheus' text format. Counts and timings only (no names of repositories or
 * people); still, where it is served is the operator's choice (`METRICS_PORT`, `METRICS_TOKEN`).
 * With a `token`, only a request carrying `Authorization: Bearer <token>` gets them; any other
 * gets 401 and nothing else.
 */
export function serveMetrics(
  read: ReadMetrics,
  options: { token: string | null; onError?: (error: unknown) => void },
): MetricsHandler {
  const expected = options.token === null ? null : digest(options.token);
  return async (req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") return false;
    if (expected !== null && !timingSafeEqual(digest(readBearer(req)), expected)) {
      res
        .writeHead(401, { "content-type": "text/plain", "www-authenticate": 'Bearer realm="loom metrics"' })
        .end("a bearer token is required (METRICS_TOKEN)\n");
      return true;
    }
    try {
      const { contentType, text } = await read();
      res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" }).end(text);
    } catch (error) {
      options.onError?.(error);
      res.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n");
    }
    return true;
  };
}

function readBearer(req: IncomingMessage): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(readAuthorization(req) ?? "");
  return match?.[1] ?? "";
}

/** Fixed-length digests, so the comparison takes the same time whatever was sent. */
function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
