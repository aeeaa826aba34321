const MAX_EXPANSIONS = 32;

/**
 * True when two `files` globs could match the same path (`**` any directories, `*` and `?`
 * within one name, `[…]` classes, `{a,b}` alternatives; a trailing `/` means everything below).
 * Errs towards "overlap" when both sides are wildcards that share their literal ends: it drives
 * a warning, not a refusal.
 */
export function globsOverlap(first: string, second: string): boolean {
  return splitGlobsOverlap(splitGlob(first), splitGlob(second));
}

/** A glob read once for many comparisons: its brace alternatives, each split into path segments. */
export type SplitGlob = readonly (readonly string[])[];

export function splitGlob(glob: string): SplitGlob {
  return expandBraces(normalize(glob)).map((path) => path.split("/"));
}

/** `globsOverlap` for globs already split with `splitGlob`. */
export function splitGlobsOverlap(left: SplitGlob, right: SplitGlob): boolean {
  return left.some((a) => right.some((b) => pathsOverlap(a, b)));
}

function normalize(glob: string): string {
  const trimmed = glob.trim().replace(/^\.\//, "").replace(/\/+/g, "/");
  return trimmed.endsWith("/") ? `${trimmed}**` : trimmed;
}

function expandBraces(glob: string): string[] {
  let results = [glob];
  for (let round = 0; round < 8; round++) {
    let changed = false;
    const next: string[] = [];
    for (const item of results) {
      const match = /\{([^{}]*)\}/.exec(item);
      if (!match) {
        next.push(item);
        continue;
      }
      changed = true;
      for (const option of (match[1] ?? "").split(","))
        next.push(item.slice(0, match.index) + option + item.slice(match.index + match[0].length));
    }
    results = next.slice(0, MAX_EXPANSIONS);
    if (!changed) break;
  }
  return results;
}

function pathsOverlap(a: readonly string[], b: readonly string[]): boolean {
  const memo = new Map<number, boolean>();
  const visit = (i: number, j: number): boolean => {
    const key = i * (b.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    memo.set(key, false);
    let result: boolean;
    if (i === a.length && j === b.length) result = true;
    else if (a[i] === "**") result = visit(i + 1, j) || (j < b.length && visit(i, j + 1));
    else if (b[j] === "**") result = visit(i, j + 1) || (i < a.length && visit(i + 1, j));
    else if (i === a.length || j === b.length) result = false;
    else result = namesOverlap(a[i] ?? "", b[j] ?? "") && visit(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return visit(0, 0);
}

const WILD = /[*?[]/;

function namesOverlap(x: string, y: string): boolean {
  if (x === y) return true;
  const wildX = WILD.test(x);
  const wildY = WILD.test(y);
  if (!wildX && !wildY) return false;
  if (!wildX) return toRegExp(y)?.test(x) ?? false;
  if (!wildY) return toRegExp(x)?.test(y) ?? false;
  const [prefixX, suffixX] = literalEnds(x);
  const [prefixY, suffixY] = literalEnds(y);
  const prefixesAgree = prefixX.startsWith(prefixY) || prefixY.startsWith(prefixX);
  const suffixesAgree = suffixX.endsWith(suffixY) || suffixY.endsWith(suffixX);
  return prefixesAgree && suffixesAgree;
}

function literalEnds(name: string): [string, string] {
  const first = name.search(WILD);
  let last = -1;
  for (let i = name.length - 1; i >= 0; i--) {
    if ("*?]".includes(name[i] ?? "")) {
      last = i;
      break;
    }
  }
  return [name.slice(0, first), name.slice(last + 1)];
}

function toRegExp(glob: string): RegExp | null {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] ?? "";
    if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else if (char === "[") {
      // `[!…]` negates; a `]` first among the members is one of them, not the class's end.
      const negated = glob[i + 1] === "!";
      const start = i + (negated ? 2 : 1);
      const end = glob.indexOf("]", start + 1);
      if (end === -1) source += "\\[";
      else {
        // A backslash, `]` and `^` are members as written (JavaScript would read `[]`, `[^]`).
        const members = glob.slice(start, end).replace(/[\\\]^]/g, "\\$&");
        source += `[${negated ? "^" : ""}${members}]`;
        i = end;
      }
    } else source += char.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  try {
    return new RegExp(`^${source}$`);
  } catch {
    return null; // an odd class such as `[z-a]`: treat the name as matching nothing
  }
}
