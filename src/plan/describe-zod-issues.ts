import type { z } from "zod";

export type IssueDescription = { path: (string | number)[]; message: string };

/**
 * Turns zod issues into short messages with the path they are about. A failed union (e.g. an
 * acceptance entry that is neither a string nor an object) reports the branch that got furthest,
 * or what each branch expected.
 */
export function describeZodIssues(issues: readonly z.core.$ZodIssue[]): IssueDescription[] {
  return issues.flatMap((issue) => describeIssue(issue, []));
}

function describeIssue(issue: z.core.$ZodIssue, prefix: (string | number)[]): IssueDescription[] {
  const path = [...prefix, ...issue.path.map(toSegment)];
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const nested = issue.errors.find((branch) => branch.some((inner) => inner.path.length > 0));
    if (nested) return nested.flatMap((inner) => describeIssue(inner, path));
    const expected = issue.errors.flatMap((branch) =>
      branch.flatMap((inner) => ("expected" in inner ? [inner.expected] : [])),
    );
    if (expected.length > 0)
      return [{ path, message: `expected ${[...new Set(expected)].map(nameType).join(" or ")}` }];
  }
  return [{ path, message: cleanMessage(issue.message) }];
}

function toSegment(key: PropertyKey): string | number {
  return typeof key === "number" ? key : String(key);
}

function cleanMessage(message: string): string {
  return message
    .replace(/^Invalid input: /, "")
    .replace(/^Invalid option: /, "")
    .replace(
      /\b(expected|received) (array|record|object)\b/g,
      (_match, verb: string, type: string) => `${verb} ${nameType(type)}`,
    );
}

function nameType(type: string): string {
  switch (type) {
    case "array":
      return "a list";
    case "record":
    case "object":
      return "a mapping";
    default:
      return type;
  }
}

/** `stages[2].acceptance[0].command` style text for a path. */
export function formatYamlPath(path: readonly (string | number)[]): string {
  return path
    .map((segment, index) =>
      typeof segment === "number" ? `[${segment}]` : index === 0 ? segment : `.${segment}`,
    )
    .join("");
}
