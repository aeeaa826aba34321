import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { MetricsHandler } from "./serve-metrics.ts";

export type MetricsServer = {
  /** The port it listens on (the one asked for, or the one given for 0). */
  port: number;
  stop(): Promise<void>;
};

/**
 * `METRICS_PORT`: `/metrics` on a port of its own, bound to `host` (127.0.0.1 unless the operator
 * says otherwise), so Prometheus reaches it and GitHub's webhook port does not serve it. Anything
 * else there is 404.
 */
export async function startMetricsServer(options: {
  host: string;
  port: number;
  handler: MetricsHandler;
  onError: (error: unknown) => void;
}): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    options.handler(req, res).then(
      (handled) => {
        if (!handled) res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      },
      (error: unknown) => {
        options.onError(error);
        if (!res.headersSent) res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: options.host, port: options.port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
