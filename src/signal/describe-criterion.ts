import type { AcceptanceCriterion, SuccessCriteria } from "../plan/plan.ts";

/** The success conditions of an extended check, as one line ("" when there are none). */
export function describeConditions(c: SuccessCriteria): string {
  const parts: string[] = [];
  if (c.exit_code !== undefined) parts.push(`exit code ${c.exit_code}`);
  if (c.stdout_contains !== undefined && c.stdout_contains.length > 0)
    parts.push(`stdout contains ${c.stdout_contains.map((s) => JSON.stringify(s)).join(", ")}`);
  if (c.stdout_not_contains !== undefined && c.stdout_not_contains.length > 0)
    parts.push(`stdout does not contain ${c.stdout_not_contains.map((s) => JSON.stringify(s)).join(", ")}`);
  if (c.stderr_empty === true) parts.push("stderr empty");
  if (c.stderr_contains !== undefined && c.stderr_contains.length > 0)
    parts.push(`stderr contains ${c.stderr_contains.map((s) => JSON.stringify(s)).join(", ")}`);
  return parts.join("; ");
}

/** One acceptance criterion as a markdown list item. */
export function describeCriterion(criterion: AcceptanceCriterion): string {
  if (typeof criterion === "string") return `- [ ] \`${criterion}\``;
  const conditions = describeConditions(criterion);
  const description = criterion.description === undefined ? "" : ` — ${criterion.description}`;
  return `- [ ] \`${criterion.command}\`${description}${conditions === "" ? "" : ` (${conditions})`}`;
}
