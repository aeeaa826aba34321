/**
 * Renders one scripted assistant message as the Anthropic Messages API does: a list of SSE events
 * for `stream: true`, or one JSON message for `stream: false`. Used by `fake-model-server.ts`.
 */

export type FakeBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; name: string; input: Record<string, unknown>; id?: string };

export type FakeUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
};

export const DEFAULT_USAGE: FakeUsage = {
  input_tokens: 100,
  output_tokens: 20,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence";

export type RenderedMessage = {
  id: string;
  model: string;
  blocks: FakeBlock[];
  usage: FakeUsage;
  stopReason: StopReason;
};

type ContentBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

let toolCounter = 0;

function toContentBlock(block: FakeBlock): ContentBlock {
  if (block.type === "text") return { type: "text", text: block.text };
  toolCounter += 1;
  const id = block.id ?? `toolu_fake_${String(toolCounter).padStart(6, "0")}`;
  return { type: "tool_use", id, name: block.name, input: block.input };
}

/** Splits text in a few pieces so clients see several deltas, as with a real model. */
function splitChunks(text: string, parts: number): string[] {
  if (text.length === 0) return [""];
  const size = Math.max(1, Math.ceil(text.length / parts));
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The SSE events of one message. `untilMessageStart` stops after the first event (to stall mid-stream). */
export function renderSseEvents(message: RenderedMessage): string[] {
  const events: string[] = [];
  const { output_tokens: outputTokens, ...startUsage } = message.usage;
  events.push(
    sse("message_start", {
      type: "message_start",
      message: {
        id: message.id,
        type: "message",
        role: "assistant",
        model: message.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...startUsage, output_tokens: 1 },
      },
    }),
  );
  message.blocks.map(toContentBlock).forEach((block, index) => {
    const start = block.type === "text" ? { type: "text", text: "" } : { ...block, input: {} };
    events.push(sse("content_block_start", { type: "content_block_start", index, content_block: start }));
    const deltas =
      block.type === "text"
        ? splitChunks(block.text, 3).map((text) => ({ type: "text_delta", text }))
        : splitChunks(JSON.stringify(block.input), 3).map((partial_json) => ({
            type: "input_json_delta",
            partial_json,
          }));
    for (const delta of deltas) {
      events.push(sse("content_block_delta", { type: "content_block_delta", index, delta }));
    }
    events.push(sse("content_block_stop", { type: "content_block_stop", index }));
  });
  events.push(
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: message.stopReason, stop_sequence: null },
      usage: { ...startUsage, output_tokens: outputTokens },
    }),
  );
  events.push(sse("message_stop", { type: "message_stop" }));
  return events;
}

/** The same message as one JSON body (`stream: false`). */
export function renderJsonMessage(message: RenderedMessage): Record<string, unknown> {
  return {
    id: message.id,
    type: "message",
    role: "assistant",
    model: message.model,
    content: message.blocks.map(toContentBlock),
    stop_reason: message.stopReason,
    stop_sequence: null,
    usage: message.usage,
  };
}
