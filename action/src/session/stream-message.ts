import { z } from "zod";

/**
 * The lines `claude -p --output-format stream-json --verbose` prints (checked with 2.1.197). Only
 * the fields loom uses are checked; unknown fields and unknown message types pass through.
 */
export const MessageUsage = z.looseObject({
  input_tokens: z.number().nonnegative().default(0),
  output_tokens: z.number().nonnegative().default(0),
  cache_creation_input_tokens: z.number().nonnegative().nullish(),
  cache_read_input_tokens: z.number().nonnegative().nullish(),
});
export type MessageUsage = z.infer<typeof MessageUsage>;

export const ContentBlock = z.union([
  z.looseObject({ type: z.literal("text"), text: z.string() }),
  z.looseObject({
    type: z.literal("tool_use"),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()).catch({}),
  }),
  z.looseObject({ type: z.string() }),
]);
export type ContentBlock = z.infer<typeof ContentBlock>;

export const SystemInit = z.looseObject({
  type: z.literal("system"),
  subtype: z.literal("init"),
  session_id: z.string(),
  model: z.string().optional(),
  tools: z.array(z.string()).optional(),
});
export type SystemInit = z.infer<typeof SystemInit>;

export const AssistantLine = z.looseObject({
  type: z.literal("assistant"),
  session_id: z.string().optional(),
  parent_tool_use_id: z.string().nullish(),
  message: z.looseObject({
    id: z.string().optional(),
    model: z.string().optional(),
    content: z.array(ContentBlock).catch([]),
    usage: MessageUsage.optional(),
  }),
});
export type AssistantLine = z.infer<typeof AssistantLine>;

export const PermissionDenial = z.looseObject({
  tool_name: z.string(),
  tool_use_id: z.string().optional(),
  tool_input: z.unknown().optional(),
});
export type PermissionDenial = z.infer<typeof PermissionDenial>;

export const ResultLine = z.looseObject({
  type: z.literal("result"),
  /** `success`, `error_max_turns`, `error_max_budget_usd`, `error_during_execution`, … */
  subtype: z.string(),
  is_error: z.boolean().default(false),
  session_id: z.string().optional(),
  num_turns: z.number().int().nonnegative().optional(),
  result: z.string().optional(),
  total_cost_usd: z.number().nonnegative().optional(),
  usage: MessageUsage.optional(),
  modelUsage: z
    .record(
      z.string(),
      z.looseObject({ contextWindow: z.number().positive().optional(), costUSD: z.number().optional() }),
    )
    .optional(),
  permission_denials: z.array(PermissionDenial).catch([]).default([]),
  terminal_reason: z.string().optional(),
});
export type ResultLine = z.infer<typeof ResultLine>;

export type StreamEvent =
  | { type: "init"; line: SystemInit }
  | { type: "assistant"; line: AssistantLine }
  | { type: "result"; line: ResultLine }
  /** Valid JSON loom does not use (user/tool results, hook events, notifications, new types). */
  | { type: "other"; messageType: string }
  | { type: "invalid"; reason: string };

/** Reads one line of the stream. Never throws: a bad line is a value. */
export function parseStreamLine(text: string): StreamEvent {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { type: "invalid", reason: `not JSON: ${String(error)}` };
  }
  const messageType = (json as { type?: unknown } | null)?.type;
  if (typeof messageType !== "string") return { type: "invalid", reason: "no message type" };
  const subtype = (json as { subtype?: unknown }).subtype;
  const schema =
    messageType === "assistant"
      ? AssistantLine
      : messageType === "result"
        ? ResultLine
        : messageType === "system" && subtype === "init"
          ? SystemInit
          : null;
  if (schema === null) return { type: "other", messageType };
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { type: "invalid", reason: `${messageType}: ${parsed.error.message}` };
  if (parsed.data.type === "assistant") return { type: "assistant", line: parsed.data };
  if (parsed.data.type === "result") return { type: "result", line: parsed.data };
  return { type: "init", line: parsed.data };
}
