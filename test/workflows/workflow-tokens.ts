import { readFileSync } from "node:fs";
import type { MappingToken } from "@actions/workflow-parser/templates/tokens/mapping-token";
import { evaluateToken, type Value } from "./executor/evaluate-template.ts";
import { loadWorkflowParser } from "./executor/load-workflow-parser.ts";

/**
 * A shipped workflow as GitHub's parser reads it, and a way to evaluate any value in it (`runs-on`, a
 * step's `with:`) with GitHub's expression engine: tests evaluate the workflow's own expressions,
 * never a copy of them.
 */
export async function readWorkflowTokens(path: string) {
  const parser = await loadWorkflowParser();
  const parsed = parser.parseWorkflow(
    { name: path, content: readFileSync(path, "utf8") },
    new parser.NoOperationTraceWriter(),
  );
  const errors = parsed.context.errors.getErrors();
  if (errors.length > 0 || !parsed.value || !parser.isMapping(parsed.value))
    throw new Error(`${path}: ${errors.map((e) => e.message).join("; ")}`);
  const root = parsed.value;
  const mapping = (token: unknown, what: string): MappingToken => {
    if (!token || !parser.isMapping(token as MappingToken)) throw new Error(`${path}: no ${what}`);
    return token as MappingToken;
  };
  const job = (id: string): MappingToken => mapping(mapping(root.find("jobs"), "jobs").find(id), `job ${id}`);
  return {
    /** A job's key (`runs-on`, `timeout-minutes`, …) evaluated with `contexts`. */
    evaluateJobKey(id: string, key: string, contexts: Record<string, Value>): Value {
      const token = job(id).find(key);
      if (!token) throw new Error(`${path}: job ${id} has no ${key}`);
      return evaluateToken(parser, token, { contexts });
    },
    /** The `with:` of every step of job `id` that uses `uses` (by prefix), evaluated with `contexts`. */
    evaluateWith(id: string, uses: string, contexts: Record<string, Value>): Value[] {
      const steps = job(id).find("steps");
      if (!steps || !parser.isSequence(steps)) return [];
      const found: Value[] = [];
      for (const step of steps) {
        const used = mapping(step, "step").find("uses");
        const given = mapping(step, "step").find("with");
        if (used && parser.isString(used) && used.value.startsWith(uses) && given)
          found.push(evaluateToken(parser, given, { contexts }));
      }
      return found;
    },
  };
}
