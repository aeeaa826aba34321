/**
 * Why the reference CLI's glob library refuses `pattern` (Rust crate `glob` 0.3.3,
 * `Pattern::new`, which the reference uses to check sandbox filesystem globs), or null when it
 * accepts it: more than two `*` in a row, a `**` that is not a whole path component, or a `[`
 * that opens no complete character class. Positions count characters from 0, as the crate's do.
 */
export function describeGlobProblem(pattern: string): string | null {
  const chars = Array.from(pattern);
  const problem = (position: number, message: string): string => `${message} (near position ${position})`;
  let i = 0;
  while (i < chars.length) {
    const char = chars[i];
    if (char === "*") {
      const start = i;
      while (chars[i] === "*") i++;
      const count = i - start;
      if (count > 2) return problem(start + 2, "wildcards are either regular `*` or recursive `**`");
      if (count === 2) {
        if (start > 0 && chars[start - 1] !== "/")
          return problem(start - 1, "recursive wildcards must form a single path component");
        if (i < chars.length && chars[i] !== "/")
          return problem(i, "recursive wildcards must form a single path component");
      }
    } else if (char === "[") {
      const negated = chars[i + 1] === "!";
      // A class holds at least one character: `[]]` and `[!]]` are classes of `]`.
      const from = negated ? i + 3 : i + 2;
      const close = chars.length >= (negated ? i + 4 : i + 3) ? chars.indexOf("]", from) : -1;
      if (close === -1) return problem(i, "invalid range pattern");
      i = close + 1;
    } else {
      i++;
    }
  }
  return null;
}
