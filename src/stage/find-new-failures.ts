import { compileWiringPattern } from "../plan/compile-wiring-pattern.ts";

/**
 * `change_impact`'s comparison, as the reference makes it: the lines of each output matching any
 * `failure_patterns` regular expression (deduplicated, first occurrence kept), and which of the
 * compare output's lines the baseline did not have (new) or which of the baseline's are gone
 * (fixed). A pattern that is not a valid regular expression is a value, not an exception.
 */
export type NewFailures =
  | {
      ok: true;
      baseline: string[];
      current: string[];
      added: string[];
      fixed: string[];
      /** The pattern (as written) the first new line matched. */
      firstMatched?: string;
    }
  | { ok: false; problem: string };

/** Lines of `output` that match any of `patterns`, deduplicated in order of first occurrence. */
export function extractMatchingLines(output: string, patterns: readonly RegExp[]): string[] {
  if (patterns.length === 0) return [];
  const seen = new Set<string>();
  for (const line of output.replaceAll("\r", "").split("\n"))
    if (patterns.some((p) => p.test(line))) seen.add(line);
  return [...seen];
}

/**
 * The patterns as regular expressions (written for Rust's `regex` crate, as wiring patterns are:
 * `(?i)` and `(?P<name>` are understood), or the first that does not compile.
 */
export function compilePatterns(
  patterns: readonly string[],
): { ok: true; regexes: RegExp[] } | { ok: false; problem: string } {
  const regexes: RegExp[] = [];
  for (const pattern of patterns) {
    const compiled = compileWiringPattern(pattern);
    if (!compiled.ok)
      return {
        ok: false,
        problem: `failure pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${compiled.message}`,
      };
    regexes.push(compiled.regex);
  }
  return { ok: true, regexes };
}

export function findNewFailures(
  baselineOutput: string,
  currentOutput: string,
  patterns: readonly string[],
): NewFailures {
  const compiled = compilePatterns(patterns);
  if (!compiled.ok) return compiled;
  const baseline = extractMatchingLines(baselineOutput, compiled.regexes);
  const current = extractMatchingLines(currentOutput, compiled.regexes);
  const before = new Set(baseline);
  const after = new Set(current);
  const added = current.filter((line) => !before.has(line));
  const first = added[0];
  const at = first === undefined ? -1 : compiled.regexes.findIndex((r) => r.test(first));
  return {
    ok: true,
    baseline,
    current,
    added,
    fixed: baseline.filter((line) => !after.has(line)),
    ...(at === -1 ? {} : { firstMatched: patterns[at] }),
  };
}
