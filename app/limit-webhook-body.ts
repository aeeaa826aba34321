import type { IncomingMessage, Server, ServerResponse } from "node:http";

/**
 * GitHub caps webhook payloads at 25 MB ("Payloads are capped at 25 MB. If an event generates a
 * larger payload, GitHub will not deliver a payload for that webhook event": docs, "Webhook events
 * and payloads"). Read as 25 MiB, so nothing GitHub sends is ever refused.
 */
export const WEBHOOK_BODY_LIMIT_BYTES = 25 * 1024 * 1024;

/** How long a refused body is still read (and dropped) before the connection is cut. */
const DRAIN_MS = 10_000;

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

function refuse(req: IncomingMessage, res: ServerResponse, limit: number): void {
  if (!res.headersSent) {
    res.writeHead(413, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: `request body over ${limit} bytes (GitHub's webhook cap)` }));
  }
  // The rest of the body is read and dropped (never kept), so the client reads the answer instead
  // of a reset; a client that keeps sending is cut off after DRAIN_MS.
  req.resume();
  const timer = setTimeout(() => req.socket.destroy(), DRAIN_MS).unref();
  req.socket.once("close", () => clearTimeout(timer));
}

/**
 * Reads a body of unknown length (chunked), counting bytes: over `limit`, 413 and the connection
 * is closed; within it, the body is handed on as `req.body` (a string), which Probot's webhook
 * middleware takes instead of reading the stream again (`@octokit/webhooks` `getPayload`).
 */
function readCounted(req: IncomingMessage, res: ServerResponse, limit: number, next: () => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  req.on("data", (chunk: Buffer) => {
    if (over) return;
    size += chunk.length;
    if (size > limit) {
      over = true;
      chunks.length = 0;
      refuse(req, res, limit);
      return;
    }
    chunks.push(chunk);
  });
  req.on("end", () => {
    if (over) return;
    (req as IncomingMessage & { body?: string }).body = Buffer.concat(chunks).toString("utf8");
    next();
  });
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || req.headers["content-length"] !== undefined;
}

/**
 * Puts a body-size guard in front of every `request` listener `server` has: a declared
 * `content-length` over `limit` gets 413 before a byte of the body is read; a body without one is
 * counted as it arrives. Everything else goes on to the listeners untouched.
 */
export function limitRequestBodies(server: Server, limit = WEBHOOK_BODY_LIMIT_BYTES): void {
  const listeners = server.listeners("request") as RequestListener[];
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const pass = () => {
      for (const listener of listeners) listener.call(server, req, res);
    };
    const declared = req.headers["content-length"];
    if (declared !== undefined) {
      if (Number(declared) > limit) refuse(req, res, limit);
      else pass();
      return;
    }
    if (hasBody(req)) readCounted(req, res, limit, pass);
    else pass();
  });
}
