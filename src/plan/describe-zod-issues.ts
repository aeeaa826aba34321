import { z } from "zod";
import { isRecord } from "./is-record.ts";

export type IssueDescription = { path: (string | number)[]; message: string };

/**
 * Turns zod issues into plain sentences about the field they concern, read from the schema and the
 * value written: "`max_turns` must be a positive whole number, got -3", "`name` is required". No
 * zod wording reaches the user. A failed union (an acceptance entry that is neither a command nor
 * a check) reports the branch that got furthest, or what each branch accepts.
 */
export function describeZodIssues(
  schema: z.ZodType,
  input: unknown,
  issues: readonly z.core.$ZodIssue[],
  fieldPrefix = "",
): IssueDescription[] {
  return issues.flatMap((issue) => describeIssue({ schema, input, fieldPrefix }, issue, []));
}

type Context = { schema: z.ZodType; input: unknown; fieldPrefix: string };

function describeIssue(
  context: Context,
  issue: z.core.$ZodIssue,
  prefix: (string | number)[],
): IssueDescription[] {
  const { schema, input, fieldPrefix } = context;
  const path = [...prefix, ...issue.path.map((key) => (typeof key === "number" ? key : String(key)))];
  if (issue.code === "invalid_union") {
    const nested = issue.errors.find((branch) => branch.some((inner) => inner.path.length > 0));
    if (nested) return nested.flatMap((inner) => describeIssue(context, inner, path));
  }
  const field = `\`${fieldPrefix}${formatYamlPath(path)}\``;
  const value = valueAt(input, path);
  if (value === undefined) return [{ path, message: `${field} is required` }];
  const expected = describeSchema(schemaAt(schema, path)) ?? describeByIssue(issue);
  return [{ path, message: `${field} must be ${expected}, got ${showValue(value)}${hint(expected, value)}` }];
}

/** The schema that checks the value at `path`, or null when the path leaves the schema. */
function schemaAt(schema: z.ZodType, path: readonly (string | number)[]): z.ZodType | null {
  let current: z.ZodType | null = schema;
  for (const segment of path) {
    current = current === null ? null : childSchema(unwrap(current), segment);
  }
  return current;
}

function childSchema(schema: z.ZodType, segment: string | number): z.ZodType | null {
  if (schema instanceof z.ZodObject) {
    const shape = schema.shape as Record<string, z.ZodType>;
    return typeof segment === "string" && Object.hasOwn(shape, segment) ? (shape[segment] ?? null) : null;
  }
  if (schema instanceof z.ZodArray) return typeof segment === "number" ? (schema.element as z.ZodType) : null;
  if (schema instanceof z.ZodRecord) return schema.valueType as z.ZodType;
  if (schema instanceof z.ZodUnion) {
    for (const option of schema.options as readonly z.ZodType[]) {
      const child = childSchema(unwrap(option), segment);
      if (child) return child;
    }
  }
  return null;
}

function unwrap(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault || schema instanceof z.ZodNullable)
    return unwrap(schema.unwrap() as z.ZodType);
  return schema;
}

/** What a schema accepts, in words ("a positive whole number", "a list", "one of low, high"). */
function describeSchema(schema: z.ZodType | null): string | null {
  if (schema === null) return null;
  const inner = unwrap(schema);
  if (inner instanceof z.ZodString) return "text";
  if (inner instanceof z.ZodBoolean) return "true or false";
  if (inner instanceof z.ZodNumber) return describeNumber(inner);
  if (inner instanceof z.ZodArray) return "a list";
  if (inner instanceof z.ZodObject || inner instanceof z.ZodRecord) return "a mapping";
  if (inner instanceof z.ZodEnum) return `one of ${inner.options.join(", ")}`;
  if (inner instanceof z.ZodLiteral) return [...inner.values].map((v) => JSON.stringify(v)).join(" or ");
  if (inner instanceof z.ZodUnion) {
    const options = (inner.options as readonly z.ZodType[]).map(describeSchema);
    if (options.every((option) => option !== null)) return [...new Set(options)].join(" or ");
  }
  return null;
}

type NumberCheck = { check: string; value?: unknown; inclusive?: boolean; format?: string };

function describeNumber(schema: z.ZodNumber): string {
  const checks = (schema.def.checks ?? []).map((check) => check._zod.def as NumberCheck);
  const whole = checks.some((c) => c.check === "number_format" && String(c.format).includes("int"));
  const noun = whole ? "whole number" : "number";
  const min = checks.find((c) => c.check === "greater_than");
  const max = checks.find((c) => c.check === "less_than");
  if (min && min.value === 0 && min.inclusive === false && !max) return `a positive ${noun}`;
  const bound = (check: NumberCheck | undefined, word: string): string =>
    check ? ` ${check.inclusive ? "" : "strictly "}${word} ${String(check.value)}` : "";
  if (min?.inclusive && max?.inclusive) return `a ${noun} from ${String(min.value)} to ${String(max.value)}`;
  const bounds = [bound(min, "at least"), bound(max, "at most")].filter(Boolean).join(" and");
  return `a ${noun}${bounds}`;
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  array: "a list",
  object: "a mapping",
  record: "a mapping",
  string: "text",
  boolean: "true or false",
};

/** Fallback when the schema cannot be found at the issue's path: what the issue itself says. */
function describeByIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_value")
    return `one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
  if (issue.code === "invalid_type") return TYPE_WORDS[issue.expected] ?? `a ${issue.expected}`;
  return "something else";
}

function valueAt(input: unknown, path: readonly (string | number)[]): unknown {
  let current = input;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === "number") current = current[segment] as unknown;
    else if (isRecord(current) && Object.hasOwn(current, String(segment))) current = current[String(segment)];
    else return undefined;
  }
  return current;
}

/** The value as a reader would recognise it from the yaml. */
function showValue(value: unknown): string {
  if (value === null) return "an empty value";
  if (Array.isArray(value)) return "a list";
  if (isRecord(value)) return "a mapping";
  if (typeof value === "string") {
    const text = JSON.stringify(value);
    return text.length > 42 ? `${text.slice(0, 40)}…"` : text;
  }
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  return "a value of another kind";
}

function hint(expected: string, value: unknown): string {
  if (expected === "a list" && typeof value === "string" && /^[\w./-]{1,40}$/.test(value))
    return ` (write [${value}] for a list of one)`;
  return "";
}

/** `stages[2].acceptance[0].command` style text for a path. */
export function formatYamlPath(path: readonly (string | number)[]): string {
  return path
    .map((segment, index) =>
      typeof segment === "number" ? `[${segment}]` : index === 0 ? segment : `.${segment}`,
    )
    .join("");
}
