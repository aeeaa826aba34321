import type { IncomingMessage, Server, ServerResponse } from "node:http";

const AUTHORIZATION = Symbol("loom.authorization");
type Hidden = IncomingMessage & { [AUTHORIZATION]?: string };
type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Takes the `Authorization` header out of every request's headers before the server's listeners
 * see it (`readAuthorization` still reads it): Probot's access log writes each request's headers,
 * and a `/metrics` bearer token must not end up in a log line.
 */
export function hideAuthorization(server: Server): void {
  const listeners = server.listeners("request") as RequestListener[];
  server.removeAllListeners("request");
  server.on("request", (req: Hidden, res: ServerResponse) => {
    const value = req.headers.authorization;
    if (value !== undefined) {
      req[AUTHORIZATION] = value;
      delete req.headers.authorization;
    }
    for (const listener of listeners) listener.call(server, req, res);
  });
}

/** The request's `Authorization` header, hidden or not. */
export function readAuthorization(req: IncomingMessage): string | undefined {
  return (req as Hidden)[AUTHORIZATION] ?? req.headers.authorization;
}
