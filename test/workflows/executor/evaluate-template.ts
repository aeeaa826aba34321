import { data, Evaluator, Lexer, Parser } from "@actions/expressions";
import type { FunctionDefinition } from "@actions/expressions/funcs/info";
import type { TemplateToken } from "@actions/workflow-parser/templates/tokens/template-token";
import type { WorkflowParser } from "./load-workflow-parser.ts";

/** A value of an expression or of a template, as plain JSON. */
export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };

/**
 * What an expression sees: its contexts (`github`, `inputs`, `steps`, …: only those present are
 * known names, as GitHub allows each only in some places) and the functions the runner adds to the
 * engine's own (`success()`, `failure()`, `cancelled()`, `always()`, `hashFiles()`).
 */
export type Scope = {
  contexts: Readonly<Record<string, Value>>;
  functions?: readonly FunctionDefinition[];
};

export class ExpressionFailed extends Error {
  override name = "ExpressionFailed";
}

/** Evaluates one expression (the text inside `${{ }}`) with GitHub's lexer, parser and evaluator. */
export function evaluateExpression(expression: string, scope: Scope): Value {
  const functions = scope.functions ?? [];
  try {
    const { tokens } = new Lexer(expression).lex();
    const tree = new Parser(tokens, Object.keys(scope.contexts), [...functions]).parse();
    const context = JSON.parse(JSON.stringify(scope.contexts), data.reviver) as data.Dictionary;
    const byName = new Map(functions.map((f) => [f.name.toLowerCase(), f]));
    const result = new Evaluator(tree, context, byName).evaluate();
    return JSON.parse(JSON.stringify(result, data.replacer) ?? "null") as Value;
  } catch (error) {
    throw new ExpressionFailed(`\${{ ${expression} }}: ${(error as Error).message}`, { cause: error });
  }
}

/** A template value (`with:`, `env:`, `runs-on:`, …) with every expression in it evaluated. */
export function evaluateToken(parser: WorkflowParser, token: TemplateToken, scope: Scope): Value {
  if (parser.isBasicExpression(token)) return evaluateExpression(token.expression, scope);
  if (parser.isString(token) || parser.isNumber(token) || parser.isBoolean(token)) return token.value;
  if (parser.isSequence(token)) {
    const items: Value[] = [];
    for (const item of token) items.push(evaluateToken(parser, item, scope));
    return items;
  }
  if (parser.isMapping(token)) {
    const mapping: Record<string, Value> = {};
    for (const pair of token)
      mapping[toText(evaluateToken(parser, pair.key, scope))] = evaluateToken(parser, pair.value, scope);
    return mapping;
  }
  if (token.isLiteral) return null;
  throw new ExpressionFailed(
    `the executor does not evaluate ${token.typeName()} (line ${token.line ?? "?"})`,
  );
}

/**
 * A value where GitHub wants a string (`with:`, `env:`, `run:`): null is empty, booleans and numbers
 * print as they do in the runner; a mapping or a sequence is refused, as GitHub refuses it.
 */
export function toText(value: Value): string {
  if (value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "boolean" || typeof value === "number") return String(value);
  throw new ExpressionFailed(`A ${Array.isArray(value) ? "sequence" : "mapping"} was not expected`);
}

/** A mapping of strings (`env:`, `with:`, `secrets:`), each value as `toText` makes it; anything else is empty. */
export function toTextMap(value: Value): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toText(v)]));
}

/** A record of plain data (job results, say) as a context value. */
export function asValue(value: unknown): Value {
  return JSON.parse(JSON.stringify(value)) as Value;
}

/** GitHub's truthiness: false, 0, -0, "", null are false; every array and object is true. */
export function isTruthy(value: Value): boolean {
  return !(value === false || value === 0 || value === "" || value === null);
}
