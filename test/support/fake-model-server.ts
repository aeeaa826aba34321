/**
 * A scripted Anthropic Messages-API server on 127.0.0.1 for running the real Claude Code binary in
 * tests (point `ANTHROPIC_BASE_URL` at `server.url`).
 *
 * API
 * ```ts
 * const server = await startFakeModelServer({
 *   turns: [
 *     { blocks: [{ type: "tool_use", name: "Write", input: { file_path: "/abs/a.txt", content: "hi" } }] },
 *     { blocks: [{ type: "text", text: "Done." }], usage: { input_tokens: 150_000 } },
 *   ],
 * });
 * // … run claude with ANTHROPIC_BASE_URL=server.url …
 * server.mainRequests();   // the conversation requests, in order (bodies parsed)
 * server.toolResults();    // every tool_result block the client sent back, in order
 * await server.close();    // also ends stalled responses
 * ```
 * - `HEAD /` (and any GET) → 200. `POST /v1/messages[?beta=true]` → SSE when `stream` is true, else
 *   JSON. `POST /v1/messages/count_tokens` → `{ input_tokens }` (a rough estimate).
 * - Conversation ("main") requests take the next scripted turn, in order. When the script is used up
 *   every further main request gets `options.afterScript` (default: a short `end_turn` text).
 * - Side requests (title/topic/summary generation and other helper calls Claude Code makes; by
 *   default any request without tools, see `isSideRequest`) get a short text reply and no turn.
 * - Compaction requests (`/compact` or auto-compaction: the conversation plus "create a detailed
 *   summary of the conversation") get `compactSummaryText` and no turn.
 * - A turn's `stopReason` defaults to `tool_use` when it has tool_use blocks, else `end_turn`;
 *   `usage` overrides `DEFAULT_USAGE` field by field (drive context % through `input_tokens` /
 *   `cache_read_input_tokens`).
 * - `stall`: `{ delayMs }` answers late; `"forever"` never answers (headers are not sent);
 *   `"mid-stream"` sends `message_start` and then nothing more.
 * - Every request is recorded in `server.requests` with its parsed body and which turn it got.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { encodeBedrockChunk } from "./aws-event-stream.ts";
import { routeProviderRequest, type FakeProvider } from "./fake-model-providers.ts";
import {
  DEFAULT_USAGE,
  renderJsonMessage,
  renderSseEvents,
  type FakeBlock,
  type FakeUsage,
  type RenderedMessage,
  type StopReason,
} from "./fake-model-sse.ts";

export type { FakeBlock, FakeUsage, StopReason } from "./fake-model-sse.ts";
export type { FakeProvider } from "./fake-model-providers.ts";

export type FakeTurn = {
  blocks: FakeBlock[];
  usage?: Partial<FakeUsage>;
  stopReason?: StopReason;
  stall?: "forever" | "mid-stream" | { delayMs: number };
};

export type RecordedRequest = {
  method: string;
  /** Path without the query string, e.g. `/v1/messages`. */
  path: string;
  query: string;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body, or null when there was none / it was not JSON. */
  body: MessagesBody | null;
  kind: "main" | "side" | "compact" | "count_tokens" | "other";
  /** Index into `turns` for main requests that got a scripted turn; null otherwise. */
  turnIndex: number | null;
  /** The model the request addressed: the body's, or with a `provider` the path's (Bedrock's model id, Vertex's model name). */
  model: string | null;
};

export type MessagesBody = {
  model?: string;
  stream?: boolean;
  tools?: unknown[];
  system?: unknown;
  messages?: { role: string; content: string | Record<string, unknown>[] }[];
  [key: string]: unknown;
};

export type FakeModelServerOptions = {
  turns: FakeTurn[];
  /** Reply to main requests once the script is used up. */
  afterScript?: FakeTurn;
  /** Reply text for side requests. */
  sideReplyText?: string;
  /** Reply to compaction requests. */
  compactSummaryText?: string;
  /** Which requests are side requests (default: no tools offered). */
  isSideRequest?: (body: MessagesBody) => boolean;
  /** Answer as Amazon Bedrock's or Google Vertex AI's endpoint instead (fake-model-providers.ts). */
  provider?: FakeProvider;
};

export type FakeModelServer = {
  url: string;
  port: number;
  requests: RecordedRequest[];
  mainRequests(): RecordedRequest[];
  /** tool_result blocks sent back by the client, in the order they arrived (deduplicated by id). */
  toolResults(): Record<string, unknown>[];
  /** How many scripted turns were handed out. */
  turnsUsed(): number;
  close(): Promise<void>;
};

/** Claude Code's compaction prompt, in the messages after the last assistant message. */
function isCompactRequest(body: MessagesBody): boolean {
  const messages = body.messages ?? [];
  const lastAssistant = messages.map((m) => m.role).lastIndexOf("assistant");
  return messages
    .slice(lastAssistant + 1)
    .some((m) => JSON.stringify(m.content).includes("create a detailed summary of the conversation"));
}

/** How a message goes back: SSE, one JSON body, or Bedrock's event stream. */
type Framing = "sse" | "json" | "event-stream";

/** The JSON of one rendered SSE event (`event: …\ndata: {…}\n\n`). */
function sseData(event: string): unknown {
  const line = event.split("\n").find((l) => l.startsWith("data: ")) ?? "data: null";
  return JSON.parse(line.slice("data: ".length)) as unknown;
}

const defaultIsSide = (body: MessagesBody): boolean => !Array.isArray(body.tools) || body.tools.length === 0;

export async function startFakeModelServer(options: FakeModelServerOptions): Promise<FakeModelServer> {
  const requests: RecordedRequest[] = [];
  const stalled = new Set<http.ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();
  let nextTurn = 0;
  let messageCounter = 0;
  const isSide = options.isSideRequest ?? defaultIsSide;
  const afterScript: FakeTurn = options.afterScript ?? { blocks: [{ type: "text", text: "All done." }] };

  const reply = (
    res: http.ServerResponse,
    body: MessagesBody,
    turn: FakeTurn,
    framing: Framing = body.stream === true ? "sse" : "json",
  ): void => {
    messageCounter += 1;
    const hasTool = turn.blocks.some((b) => b.type === "tool_use");
    const message: RenderedMessage = {
      id: `msg_fake_${String(messageCounter).padStart(6, "0")}`,
      model: body.model ?? "claude-fake",
      blocks: turn.blocks,
      usage: { ...DEFAULT_USAGE, ...turn.usage },
      stopReason: turn.stopReason ?? (hasTool ? "tool_use" : "end_turn"),
    };
    const send = (): void => {
      if (res.destroyed) return;
      if (framing === "json") {
        res.writeHead(200, { "content-type": "application/json", "request-id": message.id });
        res.end(JSON.stringify(renderJsonMessage(message)));
        return;
      }
      const sse = renderSseEvents(message);
      // Bedrock: each event's JSON in an AWS event stream `chunk` frame.
      const events = framing === "sse" ? sse : sse.map((event) => encodeBedrockChunk(sseData(event)));
      res.writeHead(
        200,
        framing === "sse"
          ? { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": message.id }
          : { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": message.id },
      );
      if (turn.stall === "mid-stream") {
        res.write(events[0]);
        stalled.add(res);
        return;
      }
      for (const event of events) res.write(event);
      res.end();
    };
    if (turn.stall === "forever") {
      stalled.add(res);
    } else if (turn.stall !== undefined && typeof turn.stall === "object") {
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, turn.stall.delayMs);
      timers.add(timer);
    } else {
      send();
    }
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse, bytes: Buffer): void => {
    const raw = bytes.toString("utf8");
    const [path = "/", query = ""] = (req.url ?? "/").split("?", 2);
    let body: MessagesBody | null = null;
    try {
      body = raw === "" ? null : (JSON.parse(raw) as MessagesBody);
    } catch (error) {
      // Google's STS takes a form: only a JSON request's body is worth a warning.
      if ((req.headers["content-type"] ?? "").includes("json"))
        process.stderr.write(`fake-model-server: body is not JSON (${String(error)})\n`);
    }
    const record: RecordedRequest = {
      method: req.method ?? "",
      path,
      query,
      headers: req.headers,
      body,
      kind: "other",
      turnIndex: null,
      model: typeof body?.model === "string" ? body.model : null,
    };
    requests.push(record);
    let framing: Framing | undefined;
    if (options.provider) {
      const route = routeProviderRequest(options.provider, {
        method: req.method ?? "",
        url: req.url ?? "/",
        path,
        headers: req.headers,
        raw: bytes,
        body,
      });
      if (route.type === "answer") {
        res.writeHead(route.status, route.headers);
        res.end(route.body);
        return;
      }
      if (route.type === "count_tokens") {
        record.kind = "count_tokens";
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }));
        return;
      }
      record.model = route.model;
      framing = route.framing;
      body = { ...body, model: route.model, stream: route.stream };
    } else if (req.method !== "POST") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(req.method === "HEAD" ? undefined : "{}");
      return;
    } else if (path === "/v1/messages/count_tokens") {
      record.kind = "count_tokens";
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ input_tokens: Math.ceil(raw.length / 4) }));
      return;
    } else if (path !== "/v1/messages" || body === null) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ type: "error", error: { type: "not_found_error", message: `no route ${path}` } }),
      );
      return;
    }
    if (body === null) return;
    if (isCompactRequest(body)) {
      record.kind = "compact";
      const text =
        options.compactSummaryText ?? "<analysis>Scripted.</analysis>\n<summary>Scripted summary.</summary>";
      reply(res, body, { blocks: [{ type: "text", text }] }, framing);
      return;
    }
    if (isSide(body)) {
      record.kind = "side";
      reply(
        res,
        body,
        { blocks: [{ type: "text", text: options.sideReplyText ?? "Scripted session" }] },
        framing,
      );
      return;
    }
    record.kind = "main";
    const turn = options.turns[nextTurn];
    if (turn === undefined) {
      reply(res, body, afterScript, framing);
      return;
    }
    record.turnIndex = nextTurn;
    nextTurn += 1;
    reply(res, body, turn, framing);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handle(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const mainRequests = (): RecordedRequest[] => requests.filter((r) => r.kind === "main");
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    mainRequests,
    toolResults: () => {
      const seen = new Map<string, Record<string, unknown>>();
      for (const request of mainRequests()) {
        for (const message of request.body?.messages ?? []) {
          if (message.role !== "user" || typeof message.content === "string") continue;
          for (const block of message.content) {
            const id = typeof block.tool_use_id === "string" ? block.tool_use_id : "";
            if (block.type === "tool_result" && !seen.has(id)) seen.set(id, block);
          }
        }
      }
      return [...seen.values()];
    },
    turnsUsed: () => nextTurn,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const res of stalled) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
