/** What a pull request label means to loom. */
export type LabelIntent = { kind: "skip" | "block"; stageId: string } | { kind: "hold" };

export const DEFAULT_LABEL_PREFIX = "loom";

/**
 * Reads `<prefix>:skip:<stage>`, `<prefix>:block:<stage>` and `<prefix>:hold`. Any other label is
 * not loom's and gives null. The stage may be qualified as `<plan-id>/<stage>`.
 */
export function parseLabel(name: string, prefix: string = DEFAULT_LABEL_PREFIX): LabelIntent | null {
  if (!name.startsWith(`${prefix}:`)) return null;
  const rest = name.slice(prefix.length + 1);
  if (rest === "hold") return { kind: "hold" };
  const match = /^(skip|block):(.+)$/.exec(rest);
  if (match === null) return null;
  const kind = match[1] === "skip" ? "skip" : "block";
  return { kind, stageId: match[2] ?? "" };
}

/**
 * The labels one plan obeys: loom's labels under `prefix` that are unqualified or qualified with
 * this plan's id (`<prefix>:skip:<plan-id>/<stage>`), the qualifier removed. Other labels are
 * dropped, so the orchestrator reads plain `<prefix>:skip:<stage>` labels.
 */
export function normalizeLabels(labels: string[], prefix: string, planId: string): string[] {
  const normalized: string[] = [];
  for (const label of labels) {
    const intent = parseLabel(label, prefix);
    if (intent === null) continue;
    if (intent.kind === "hold") {
      normalized.push(`${prefix}:hold`);
      continue;
    }
    const slash = intent.stageId.lastIndexOf("/");
    if (slash > 0 && intent.stageId.slice(0, slash) !== planId) continue;
    const stageId = slash > 0 ? intent.stageId.slice(slash + 1) : intent.stageId;
    normalized.push(`${prefix}:${intent.kind}:${stageId}`);
  }
  return [...new Set(normalized)].sort();
}
