import type { TokenUsage } from "../../../src/artifacts/stage-result.ts";
import { describeToolUse, FILE_WRITING_TOOLS, findToolPath } from "../../../src/artifacts/hook-input.ts";
import { hasReviewReport } from "../../../src/review/review-report.ts";
import { findDeviations } from "./find-deviations.ts";
import type { MessageUsage, PermissionDenial, ResultLine, StreamEvent } from "./stream-message.ts";

const RECENT_TOOL_USES = 30;

/** What the stream showed so far. Built by `observeStream`, one event at a time; never mutated. */
export type StreamObservation = {
  sessionId: string;
  model: string | null;
  /** Main-conversation assistant messages seen (sub-agent messages do not count). */
  turns: number;
  lastMessageId: string | null;
  /** Tokens of finished messages plus the current one. */
  tokensBefore: TokenUsage;
  currentTokens: TokenUsage;
  /** Context used by the newest main-conversation request (input + cache + output tokens). */
  contextTokens: number;
  /** From the result's `modelUsage`, once known. */
  contextWindow: number | null;
  toolUses: number;
  lastTool: string | null;
  activity: string | null;
  recentActivity: string[];
  filesTouched: string[];
  lastText: string;
  /**
   * The newest main-conversation text (or result) holding a `## Code Review` report: the report
   * may come before the last message (a Stop hook can ask for one more turn).
   */
  reviewText: string | null;
  deviations: string[];
  invalidLines: number;
  result: ResultLine | null;
};

export const ZERO_TOKENS: TokenUsage = { input: 0, output: 0, cache_read: 0, cache_creation: 0 };

export const EMPTY_OBSERVATION: StreamObservation = {
  sessionId: "",
  model: null,
  turns: 0,
  lastMessageId: null,
  tokensBefore: ZERO_TOKENS,
  currentTokens: ZERO_TOKENS,
  contextTokens: 0,
  contextWindow: null,
  toolUses: 0,
  lastTool: null,
  activity: null,
  recentActivity: [],
  filesTouched: [],
  lastText: "",
  reviewText: null,
  deviations: [],
  invalidLines: 0,
  result: null,
};

function toTokens(usage: MessageUsage): TokenUsage {
  return {
    input: usage.input_tokens,
    output: usage.output_tokens,
    cache_read: usage.cache_read_input_tokens ?? 0,
    cache_creation: usage.cache_creation_input_tokens ?? 0,
  };
}

export function addTokens(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cache_read: a.cache_read + b.cache_read,
    cache_creation: a.cache_creation + b.cache_creation,
  };
}

export function sumTokens(o: StreamObservation): TokenUsage {
  return addTokens(o.tokensBefore, o.currentTokens);
}

function observeAssistant(
  o: StreamObservation,
  event: Extract<StreamEvent, { type: "assistant" }>,
): StreamObservation {
  const { line } = event;
  const main = line.parent_tool_use_id === null || line.parent_tool_use_id === undefined;
  const messageId = line.message.id ?? null;
  const isNew = messageId === null || messageId !== o.lastMessageId;
  const usage = line.message.usage === undefined ? null : toTokens(line.message.usage);
  let next: StreamObservation = {
    ...o,
    sessionId: o.sessionId || (line.session_id ?? ""),
    lastMessageId: messageId ?? o.lastMessageId,
    turns: o.turns + (main && isNew ? 1 : 0),
    tokensBefore: isNew ? sumTokens(o) : o.tokensBefore,
    currentTokens: usage ?? (isNew ? ZERO_TOKENS : o.currentTokens),
    contextTokens:
      main && usage !== null
        ? usage.input + usage.cache_read + usage.cache_creation + usage.output
        : o.contextTokens,
  };
  for (const block of line.message.content) {
    if (block.type === "text" && "text" in block && typeof block.text === "string") {
      const found = findDeviations(block.text);
      next = {
        ...next,
        lastText: main ? block.text : next.lastText,
        reviewText: main && hasReviewReport(block.text) ? block.text : next.reviewText,
        deviations: found.length === 0 ? next.deviations : [...new Set([...next.deviations, ...found])],
      };
    } else if (block.type === "tool_use" && "name" in block && typeof block.name === "string") {
      const input =
        "input" in block && typeof block.input === "object" && block.input !== null ? block.input : {};
      const toolInput = input as Record<string, unknown>;
      const activity = describeToolUse(block.name, toolInput);
      const path = FILE_WRITING_TOOLS.includes(block.name) ? findToolPath(toolInput) : null;
      next = {
        ...next,
        toolUses: next.toolUses + 1,
        lastTool: block.name,
        activity,
        recentActivity: [...next.recentActivity, activity].slice(-RECENT_TOOL_USES),
        filesTouched:
          path === null || next.filesTouched.includes(path)
            ? next.filesTouched
            : [...next.filesTouched, path],
      };
    }
  }
  return next;
}

/** Folds one stream event into what was observed. Pure. */
export function observeStream(o: StreamObservation, event: StreamEvent): StreamObservation {
  switch (event.type) {
    case "init":
      return { ...o, sessionId: event.line.session_id, model: event.line.model ?? o.model };
    case "assistant":
      return observeAssistant(o, event);
    case "result": {
      const { line } = event;
      const windows = Object.values(line.modelUsage ?? {}).flatMap((m) =>
        m.contextWindow === undefined ? [] : [m.contextWindow],
      );
      const found = findDeviations(line.result ?? "");
      return {
        ...o,
        sessionId: o.sessionId || (line.session_id ?? ""),
        result: line,
        ...(line.result !== undefined && hasReviewReport(line.result) ? { reviewText: line.result } : {}),
        contextWindow: windows.length === 0 ? o.contextWindow : Math.max(...windows),
        deviations: [...new Set([...o.deviations, ...found])],
        ...(line.usage === undefined
          ? {}
          : { tokensBefore: toTokens(line.usage), currentTokens: ZERO_TOKENS }),
      };
    }
    case "other":
      return o;
    case "invalid":
      return { ...o, invalidLines: o.invalidLines + 1 };
  }
}

/** Default context window: the `[1m]` model variants have 1,000,000 tokens, others 200,000. */
export function guessContextWindow(model: string | null): number {
  return model !== null && /\[1m\]/i.test(model) ? 1_000_000 : 200_000;
}

/** Percent of the context window the newest request used, 0–100. */
export function computeContextPercent(o: StreamObservation, configuredWindow: number | undefined): number {
  const window = o.contextWindow ?? configuredWindow ?? guessContextWindow(o.model);
  return Math.min(100, Math.max(0, (o.contextTokens / window) * 100));
}

export function describePermissionDenial(denial: PermissionDenial): string {
  const input = typeof denial.tool_input === "object" && denial.tool_input !== null ? denial.tool_input : {};
  return describeToolUse(denial.tool_name, input as Record<string, unknown>);
}
