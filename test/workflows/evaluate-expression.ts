/**
 * A tiny evaluator for the subset of GitHub Actions expressions loom's workflows compute with:
 * `inputs.<name>` (names may hold `-`), string literals, `( )`, `!`, `==`, `!=`, `&&`, `||` and the
 * functions `startsWith`, `fromJSON`. GitHub's rules, from its "Evaluate expressions" reference:
 * `&&` and `||` return one of their operands (not a boolean) and short-circuit; falsy values are
 * `false`, `0`, `-0`, `""` and `null`, every array and object is truthy; `startsWith` ignores case;
 * `==` compares strings ignoring case. Anything else throws, so a test cannot pass on a construct
 * this evaluator does not know.
 */
type Value = string | number | boolean | null | readonly unknown[] | Record<string, unknown>;

const TOKEN = /\s*(?:('(?:[^']|'')*')|([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)|(&&|\|\||==|!=|[(),!]))/y;

export function evaluateExpression(text: string, inputs: Record<string, Value>): Value {
  const body = /^\$\{\{([\s\S]*)\}\}$/.exec(text.trim())?.[1];
  if (body === undefined) throw new Error(`not a single \${{ }} expression: ${text}`);
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < body.trimEnd().length) {
    const match = TOKEN.exec(body);
    if (match === null) throw new Error(`cannot read ${JSON.stringify(body.slice(TOKEN.lastIndex))}`);
    tokens.push(match[1] ?? match[2] ?? match[3] ?? "");
  }
  let at = 0;
  const peek = (): string | undefined => tokens[at];
  const take = (expected?: string): string => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token !== expected))
      throw new Error(`expected ${expected ?? "a token"}, got ${token ?? "the end"}`);
    return token;
  };
  // Each parse function returns a thunk, so `&&`/`||` can leave their right side unevaluated.
  type Lazy = () => Value;
  const or = (): Lazy => {
    let left = and();
    while (peek() === "||") {
      take();
      const [l, r] = [left, and()];
      left = () => {
        const value = l();
        return isTruthy(value) ? value : r();
      };
    }
    return left;
  };
  const and = (): Lazy => {
    let left = equality();
    while (peek() === "&&") {
      take();
      const [l, r] = [left, equality()];
      left = () => {
        const value = l();
        return isTruthy(value) ? r() : value;
      };
    }
    return left;
  };
  const equality = (): Lazy => {
    const left = unary();
    const op = peek();
    if (op !== "==" && op !== "!=") return left;
    take();
    const right = unary();
    return () => {
      const same = asString(left()).toLowerCase() === asString(right()).toLowerCase();
      return op === "==" ? same : !same;
    };
  };
  const unary = (): Lazy => {
    if (peek() !== "!") return primary();
    take();
    const operand = unary();
    return () => !isTruthy(operand());
  };
  const primary = (): Lazy => {
    const token = take();
    if (token === "(") {
      const inner = or();
      take(")");
      return inner;
    }
    if (token.startsWith("'")) {
      const literal = token.slice(1, -1).replaceAll("''", "'");
      return () => literal;
    }
    if (peek() === "(") return call(token);
    const [context, name, ...rest] = token.split(".");
    if (context !== "inputs" || name === undefined || rest.length > 0)
      throw new Error(`unknown context ${token}`);
    return () => {
      if (!(name in inputs)) throw new Error(`inputs.${name} is not an input`);
      return inputs[name] ?? null;
    };
  };
  const call = (name: string): Lazy => {
    take("(");
    const args: Lazy[] = [];
    while (peek() !== ")") {
      args.push(or());
      if (peek() === ",") take(",");
    }
    take(")");
    if (name === "startsWith" && args.length === 2)
      return () => asString(args[0]?.()).toLowerCase().startsWith(asString(args[1]?.()).toLowerCase());
    if (name === "fromJSON" && args.length === 1) return () => JSON.parse(asString(args[0]?.())) as Value;
    throw new Error(`unknown function ${name}/${args.length}`);
  };
  const expression = or();
  if (at !== tokens.length) throw new Error(`unexpected ${tokens[at]}`);
  return expression();
}

/** GitHub's string coercion for the scalars used here; arrays and objects are refused. */
function asString(value: Value | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") throw new Error("an array or object used as a string");
  return String(value);
}

function isTruthy(value: Value): boolean {
  return !(value === false || value === 0 || value === "" || value === null);
}
