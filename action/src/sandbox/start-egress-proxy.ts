import http from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import type { EgressDenial } from "../../../src/artifacts/egress-denial.ts";
import { matchesDomain } from "../../../src/sandbox/match-domain.ts";

/** At most this many distinct refused hosts are kept (further ones only count). */
export const MAX_DENIALS = 50;

export type EgressProxyOptions = {
  /** Domain patterns let through (`matchesDomain`; `host:port` for one port only). */
  allow: readonly string[];
  now: () => number;
  /** The command behind a client's source port (`findSocketCommand`); left out: not looked up. */
  findCommand?: (clientPort: number) => Promise<string | undefined>;
  log?: (message: string, data?: Record<string, unknown>) => void;
};

export type EgressProxy = {
  /** The proxy's URL for `HTTP_PROXY` / `HTTPS_PROXY` (`http://127.0.0.1:<port>`). */
  url: string;
  port: number;
  /** The hosts refused so far, first refusal first. */
  denials: () => EgressDenial[];
  /** Refusals past `MAX_DENIALS` distinct hosts. */
  moreDenials: () => number;
  close: () => Promise<void>;
};

/**
 * Where a name the session asked for is connected to. `localhost` and `*.localhost` are loopback
 * (RFC 6761), whatever the runner's resolver says; every other name goes to the resolver.
 */
export function resolveTarget(host: string): string {
  const h = host
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^\[(.*)\]$/, "$1");
  return h === "localhost" || h.endsWith(".localhost") ? "127.0.0.1" : h;
}

/**
 * loom's egress proxy on 127.0.0.1: an HTTP proxy (CONNECT for TLS and anything else that
 * tunnels, absolute-URI requests for plain HTTP) that decides by the host NAME the client asked
 * for, so an allowlist of domains holds whatever addresses they resolve to. A refused request gets
 * `403` with the reason and is recorded (host, port, first time, count, the asking command).
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const denied = new Map<string, EgressDenial>();
  let more = 0;
  const sockets = new Set<net.Socket>();
  const allowed = (host: string, port: number): boolean =>
    options.allow.some((pattern) => matchesDomain(pattern, host, port));
  const refuse = async (host: string, port: number, clientPort: number | undefined): Promise<string> => {
    const key = `${host}:${port}`;
    const seen = denied.get(key);
    if (seen !== undefined) seen.count += 1;
    else if (denied.size >= MAX_DENIALS) more += 1;
    else {
      const entry: EgressDenial = { host, port, at: new Date(options.now()).toISOString(), count: 1 };
      denied.set(key, entry);
      const command =
        clientPort === undefined || options.findCommand === undefined
          ? undefined
          : await options.findCommand(clientPort).catch(() => undefined);
      if (command !== undefined) entry.command = command;
    }
    options.log?.("egress refused", { host, port });
    return `loom's sandbox refused ${host}:${port}: the host is not in this stage's network allowlist\n`;
  };

  const server = http.createServer((request, response) => {
    let target: URL;
    try {
      target = new URL(request.url ?? "");
    } catch {
      response
        .writeHead(400, { "content-type": "text/plain" })
        .end("loom's egress proxy takes absolute URLs only\n");
      return;
    }
    if (target.protocol !== "http:") {
      response
        .writeHead(400, { "content-type": "text/plain" })
        .end(`loom's egress proxy forwards http:// URLs; ${target.protocol} goes through CONNECT\n`);
      return;
    }
    const host = target.hostname.replace(/^\[(.*)\]$/, "$1");
    const port = Number(target.port || 80);
    if (!allowed(host, port)) {
      void refuse(host, port, request.socket.remotePort).then((why) =>
        response.writeHead(403, { "content-type": "text/plain" }).end(why),
      );
      return;
    }
    const upstream = http.request(
      {
        host: resolveTarget(host),
        port,
        method: request.method,
        path: `${target.pathname}${target.search}`,
        headers: withoutProxyHeaders(request.headers),
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on("error", (error) => {
      if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" });
      response.end(`loom's egress proxy could not reach ${host}:${port}: ${error.message}\n`);
    });
    request.pipe(upstream);
  });

  server.on("connect", (request: http.IncomingMessage, client: Duplex, head: Buffer) => {
    const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(request.url ?? "");
    const clientPort = request.socket.remotePort;
    if (match === null) {
      client.end("HTTP/1.1 400 Bad Request\r\n\r\n");
      return;
    }
    const host = (match[1] ?? "").replace(/^\[(.*)\]$/, "$1");
    const port = Number(match[2]);
    if (port > 65_535 || !allowed(host, port)) {
      void refuse(host, port, clientPort).then((why) =>
        client.end(
          `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(why)}\r\nconnection: close\r\n\r\n${why}`,
        ),
      );
      return;
    }
    const upstream = net.connect(port, resolveTarget(host), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    client.on("close", () => upstream.destroy());
    upstream.on("error", () => client.end("HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n"));
    client.on("error", () => upstream.destroy());
  });
  server.on("connection", (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // A client that goes away mid-answer (a killed command) is nothing to report.
    socket.on("error", (error) => options.log?.("egress proxy client error", { error: error.message }));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("egress proxy: no TCP address");
  return {
    url: `http://127.0.0.1:${address.port}`,
    port: address.port,
    denials: () => [...denied.values()].map((entry) => ({ ...entry })),
    moreDenials: () => more,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The request's headers without the ones meant for the proxy (its credentials, its connection). */
function withoutProxyHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith("proxy-")));
}
