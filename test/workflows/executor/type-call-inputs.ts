import type { MappingToken } from "@actions/workflow-parser/templates/tokens/mapping-token";
import { evaluateToken, toText, type Value } from "./evaluate-template.ts";
import type { WorkflowParser } from "./load-workflow-parser.ts";
import { findKey, StartupFailure } from "./load-workflow.ts";

/**
 * A called workflow's `inputs` context: each `workflow_call` input from the caller's `with:` or its
 * `default` (evaluated), of its declared type. A value of another type fails the run, as GitHub
 * refuses it; a string holding a number or a boolean is taken for a number or boolean input (what
 * `${{ }}` hands over); an unset input without a default is "", false or 0.
 */
export function typeCallInputs(
  parser: WorkflowParser,
  definitions: MappingToken | undefined,
  given: Record<string, Value>,
  defaultContexts: Record<string, Value>,
): Record<string, Value> {
  const inputs: Record<string, Value> = {};
  const byName = new Map(Object.entries(given).map(([name, value]) => [name.toLowerCase(), value]));
  for (const pair of definitions ?? []) {
    const name = toText(evaluateToken(parser, pair.key, { contexts: {} }));
    const type = toText(
      evaluateToken(parser, findKey(pair.value, "type", parser) ?? pair.key, { contexts: {} }),
    );
    const fallback = findKey(pair.value, "default", parser);
    const value = byName.has(name.toLowerCase())
      ? (byName.get(name.toLowerCase()) ?? null)
      : fallback
        ? evaluateToken(parser, fallback, { contexts: defaultContexts })
        : null;
    inputs[name] = typed(name, type, value);
  }
  return inputs;
}

function typed(name: string, type: string, value: Value): Value {
  const refuse = (): never => {
    throw new StartupFailure(
      `The template is not valid. Input ${name} is of type ${type}, not ${JSON.stringify(value)}`,
    );
  };
  switch (type) {
    case "string":
      return value === null ? "" : typeof value === "string" ? value : refuse();
    case "number":
      if (value === null) return 0;
      if (typeof value === "number") return value;
      return typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))
        ? Number(value)
        : refuse();
    case "boolean":
      if (value === null) return false;
      if (typeof value === "boolean") return value;
      return value === "true" ? true : value === "false" ? false : refuse();
    default:
      return refuse();
  }
}
