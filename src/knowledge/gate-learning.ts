import { findSecrets } from "../redact/redact-secrets.ts";
import type { Learning } from "./learning.ts";
import { tokenize } from "./find-near-duplicate.ts";

/**
 * Instructions that would turn a learning into a lever on later sessions: widening what an agent
 * may do, or switching off what checks its work. Learnings are injected into later prompts, so a
 * session must not be able to leave orders for them. Matched case-insensitively on the summary,
 * detail and scope.
 */
const FORBIDDEN: readonly { pattern: RegExp; reason: string }[] = [
  {
    pattern:
      /\b(bypass_?permissions|dangerously[-_ ]skip[-_ ]permissions|permission[-_ ]mode|allowed_?tools|disallowed_?tools)\b/i,
    reason: "it tells later sessions to change their permissions",
  },
  {
    pattern: /\ballow_(workflow_changes|agent_config_changes|knowledge_edits)\b/i,
    reason: "it tells later sessions to loosen the publish rules",
  },
  {
    pattern:
      /--no-verify\b|\b(skip|disable|bypass|turn off|switch off|silence|suppress|comment out)\s+(the\s+|all\s+|any\s+)?(pre-commit\s+|git\s+)?(acceptance( criteria)?|checks?|tests?|test suite|hooks?|ci|lint(er|ing)?|type ?checks?|verification|safety|sandbox|guard ?rails?|secret scan(ning)?|review)\b/i,
    reason: "it tells later sessions to skip or disable checks",
  },
  {
    pattern:
      /(\b(it|test|describe)\.skip\s*\(|\bxit\s*\(|@ts-(ignore|nocheck)\b|eslint-disable\b|#\s*type:\s*ignore\b|#\[ignore\])/i,
    reason: "it tells later sessions to silence tests or checkers",
  },
  {
    pattern:
      /\b(edit|change|modify|rewrite|delete|remove|overwrite|replace)\s+(the\s+)?(\.github\b|\.claude\b|claude\.md\b|claude\.local\.md\b|\.mcp\.json\b|doc\/loom\/knowledge\b|learnings?(\.md)?\b)/i,
    reason: "it tells later sessions to change protected files",
  },
  {
    pattern:
      /\bignore\s+(all\s+|any\s+)?(the\s+)?(previous|prior|above|earlier|system|loom'?s?)\s+(instructions|rules|prompt)\b|\b(you|agents?|sessions?|claude)\s+(must|should|may|can)\s+now\b/i,
    reason: "it gives orders to later sessions instead of recording a fact",
  },
  {
    pattern:
      /\b(sudo\b|chmod\s+(-R\s+)?777\b|curl\b[^\n|]*\|\s*(ba|z)?sh\b|wget\b[^\n|]*\|\s*(ba|z)?sh\b|git\s+push\s+(-f|--force)\b|git\s+reset\s+--hard\b)/i,
    reason: "it recommends a dangerous command",
  },
];

/** Summaries that say nothing. */
const BOILERPLATE =
  /^(nothing|no (new |particular )?(learnings?|lessons?|insights?)|none|n\/?a|todo|tbd|placeholder|lorem ipsum|test learning|example|summary|learned a lot|it works|all good|done)\b/i;

/** A learning needs this many distinct words in its detail to say something. */
export const MIN_DETAIL_WORDS = 5;

/** Why the learning may not be recorded, or null when it passes the write gate. */
export function gateLearning(learning: Learning, knownSecrets: readonly string[]): string | null {
  const fields = [learning.summary, learning.detail, learning.scope, learning.tags.join(" ")];
  for (const text of fields) {
    const found = findSecrets(text, knownSecrets)[0];
    if (found !== undefined) return `it contains what looks like a ${found.kind} (the value is not shown)`;
  }
  const prose = `${learning.summary}\n${learning.detail}\n${learning.scope}`;
  for (const rule of FORBIDDEN) if (rule.pattern.test(prose)) return rule.reason;
  if (BOILERPLATE.test(learning.summary.trim())) return "its summary is boilerplate, not a learning";
  if (/<[a-z _-]{1,30}>|\.\.\.\s*$|\{\{[^}]*\}\}/i.test(learning.summary))
    return "its summary still holds a template placeholder";
  const detailWords = tokenize(learning.detail);
  if (detailWords.size < MIN_DETAIL_WORDS)
    return `its detail has fewer than ${MIN_DETAIL_WORDS} distinct words: say what to do and why`;
  const summaryWords = tokenize(learning.summary);
  if ([...detailWords].every((word) => summaryWords.has(word))) return "its detail only repeats the summary";
  return null;
}
