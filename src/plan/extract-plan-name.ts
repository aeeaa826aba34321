/**
 * The plan's name: the first line that starts with `# ` (after trimming), without the `# ` and
 * without a leading `Plan:` in any letter case, as the reference CLI reads it. Null when there is
 * no such heading.
 */
export function extractPlanName(text: string): string | null {
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("# ")) continue;
    const name = trimmed.replace(/^(# )+/, "").trim();
    return name.toLowerCase().startsWith("plan:") ? name.slice("plan:".length).trim() : name;
  }
  return null;
}
