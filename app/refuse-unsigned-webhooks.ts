import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { verify } from "@octokit/webhooks-methods";
import { limitRequestBodies, WEBHOOK_BODY_LIMIT_BYTES } from "./limit-webhook-body.ts";
import { hideAuthorization } from "./metrics/hide-authorization.ts";

/** Why a webhook was refused: each is one warn line, `webhook refused: <reason>`. */
export const REFUSALS = {
  unsigned: "no signature",
  forged: "signature does not match",
  unparseable: "invalid JSON",
} as const;
export type Refusal = keyof typeof REFUSALS;

export type WebhookGuardOptions = {
  /** WEBHOOK_SECRET, read at each request (the setup flow sets it while the process runs); unset: no guard. */
  secret: () => string | undefined;
  /** Where webhooks are posted (Probot's WEBHOOK_PATH, and `/`). */
  paths: readonly string[];
  /** The log the refusals go to (Probot's, once the App is loaded). */
  log: () => { warn(data: object, message: string): void };
};

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** The headers Probot's middleware requires, in its order (its "Required headers missing" answer). */
const WEBHOOK_HEADERS = ["x-github-event", "x-hub-signature-256", "x-github-delivery"] as const;
type WithBody = IncomingMessage & { body?: string };

/**
 * Refuses a webhook whose signature is missing or does not match, or whose body is not JSON, before
 * Probot sees it: one warn line (`webhook refused: <reason>`, with the event name and delivery id,
 * never the payload) and nothing else, and the answer Probot gives (400, its JSON error). Probot
 * itself logs a forged delivery twice at error level with its whole payload (its `webhooks.onError`
 * handler and its middleware). A webhook that passes goes on with its body read (`req.body`, which
 * Probot's middleware takes instead of the stream), so it is not read twice. What is not a JSON
 * post goes on to Probot untouched (415, 404…).
 */
export function refuseUnsignedWebhooks(server: Server, options: WebhookGuardOptions): void {
  const paths = new Set(options.paths.map(trimSlashes));
  const listeners = server.listeners("request") as RequestListener[];
  server.removeAllListeners("request");
  server.on("request", (req: WithBody, res: ServerResponse) => {
    const pass = () => {
      for (const listener of listeners) listener.call(server, req, res);
    };
    const secret = options.secret();
    if (req.method !== "POST" || !secret || !paths.has(trimSlashes(readPath(req.url)))) return pass();
    if (!/^\s*application\/json\s*(;|$)/.test(req.headers["content-type"] ?? "")) return pass();
    const refuse = (refusal: Refusal, answer: string) => {
      const event = req.headers["x-github-event"] ?? null;
      const delivery = req.headers["x-github-delivery"] ?? null;
      options.log().warn({ event, delivery, refusal }, `webhook refused: ${REFUSALS[refusal]}`);
      // Read and dropped, so the client reads the answer instead of a reset.
      req.resume();
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: answer }));
    };
    const signature = req.headers["x-hub-signature-256"];
    if (typeof signature !== "string") {
      const missing = WEBHOOK_HEADERS.filter((header) => req.headers[header] === undefined);
      return refuse("unsigned", `Required headers missing: ${missing.join(", ")}`);
    }
    readBody(req).then(
      async (body) => {
        req.body = body;
        if (!(await verify(secret, body, signature).catch(() => false)))
          return refuse(
            "forged",
            "Error: [@octokit/webhooks] signature does not match event payload and secret",
          );
        if (!isJson(body)) return refuse("unparseable", "SyntaxError: Invalid JSON");
        pass();
      },
      // The connection failed while the body was read: there is nobody to answer.
      () => req.destroy(),
    );
  });
}

/**
 * Guards every HTTP server of this process (Probot builds its own and does not hand it out) when it
 * sees its first request, before that request reaches any listener: the `Authorization` header
 * is put out of the access log's reach (`hideAuthorization`), then the body size is checked
 * (`limitRequestBodies`: 413 over GitHub's 25 MB cap, before the body is read), then the signature.
 * Returns a function that stops guarding servers not seen yet.
 */
export function guardWebhookServers(
  options: WebhookGuardOptions,
  limit = WEBHOOK_BODY_LIMIT_BYTES,
): () => void {
  const guarded = new WeakSet<Server>();
  const onStart = (message: unknown) => {
    const { server } = message as { server: Server };
    if (guarded.has(server)) return;
    guarded.add(server);
    // The last wrapper put in place runs first.
    refuseUnsignedWebhooks(server, options);
    limitRequestBodies(server, limit);
    hideAuthorization(server);
  };
  subscribe("http.server.request.start", onStart);
  return () => unsubscribe("http.server.request.start", onStart);
}

/** The body as text: already read by the size guard (a chunked body), or read now (its length was declared). */
function readBody(req: WithBody): Promise<string> {
  if (typeof req.body === "string") return Promise.resolve(req.body);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.once("error", reject);
  });
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function readPath(url: string | undefined): string {
  try {
    return new URL(url ?? "/", "http://localhost").pathname;
  } catch {
    return "";
  }
}

/** Probot's middleware matches its path with trailing slashes trimmed. */
function trimSlashes(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed === "" ? "/" : trimmed;
}
