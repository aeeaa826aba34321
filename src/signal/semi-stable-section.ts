import type { Plan, Stage } from "../plan/plan.ts";
import { fenceData } from "./fence-data.ts";
import type { SignalKnowledge } from "./signal-input.ts";

/** How many learnings a signal carries at most. */
export const MAX_LEARNINGS = 10;
/** How much learnings text a signal carries at most (characters); later learnings are left out. */
export const MAX_LEARNINGS_CHARS = 6000;

function renderKnowledge(knowledge: SignalKnowledge | undefined): string {
  const summary = knowledge?.summary?.trim() ?? "";
  const body =
    summary === ""
      ? "The knowledge base (`doc/loom/knowledge/`) is empty or missing. Before you change code,\n" +
        "find the entry points, patterns and conventions you need and note them there."
      : fenceData("knowledge", summary);
  return `## Knowledge\n\n${body}\n`;
}

function renderLearnings(knowledge: SignalKnowledge | undefined): string {
  const items: string[] = [];
  let size = 0;
  for (const l of (knowledge?.learnings ?? []).slice(0, MAX_LEARNINGS)) {
    const detail =
      l.detail === undefined || l.detail.trim() === "" ? "" : `\n  ${l.detail.trim().replace(/\n/g, "\n  ")}`;
    const where = [
      l.scope === undefined || l.scope.trim() === "" ? "" : `scope: ${l.scope.trim()}`,
      l.tags === undefined || l.tags.length === 0 ? "" : `tags: ${l.tags.join(", ")}`,
    ].filter((part) => part !== "");
    const item = `- **${l.category}**: ${l.summary.trim()}${where.length === 0 ? "" : ` (${where.join("; ")})`}${detail}`;
    // Learnings arrive best first: the cap drops the least relevant, never cuts one in half.
    if (size + item.length > MAX_LEARNINGS_CHARS) break;
    size += item.length + 1;
    items.push(item);
  }
  if (items.length === 0) return "";
  return `## Learnings From Earlier Sessions\n\n${fenceData("learnings", items.join("\n"))}\n`;
}

function renderValue(value: unknown): string {
  if (Array.isArray(value)) return value.map((v) => renderValue(v)).join(", ");
  if (value !== null && typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Sandbox rules: the stage's own over the plan's, key by key. */
function renderSandbox(plan: Plan, stage: Stage, networkEnforced: boolean): string {
  const rules = { ...(plan.metadata.sandbox ?? {}), ...(stage.sandbox ?? {}) };
  const keys = Object.keys(rules).sort();
  if (keys.length === 0) return "";
  const lines = keys.map((key) => `- \`${key}\`: ${renderValue(rules[key])}`);
  const enforced =
    rules.enabled === false
      ? ""
      : !networkEnforced
        ? "\nThis runner cannot enforce the network limit: keep to the allowed domains yourself.\n"
        : "\nThe network limit is enforced: your commands and the checks reach only the allowed domains (and the model provider) through loom's proxy (`HTTPS_PROXY` is set); any other host is refused with HTTP 403 and direct connections fail. If the stage needs another host, say so in your summary instead of working around it.\n";
  return `## Sandbox Rules\n\nThe plan sets these limits for this stage; stay inside them:\n\n${lines.join("\n")}\n${enforced}`;
}

/** Changes per stage, not per session: knowledge, learnings, sandbox rules. */
export function renderSemiStableSection(
  plan: Plan,
  stage: Stage,
  knowledge: SignalKnowledge | undefined,
  networkEnforced = true,
): string {
  return [renderKnowledge(knowledge), renderLearnings(knowledge), renderSandbox(plan, stage, networkEnforced)]
    .filter((part) => part !== "")
    .join("\n");
}
