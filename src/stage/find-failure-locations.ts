/** A file and line a failed check's output names, relative to the repository root. */
export type FailureLocation = { path: string; line: number; column?: number };

/** Most locations kept per check (the check run shows at most 50 annotations per write). */
export const MAX_LOCATIONS_PER_CHECK = 10;
/** Only the end of a long output is searched: that is where failures are reported. */
const SEARCHED_CHARS = 64 * 1024;

// `src/a.ts:12:5`, `./a.py:3`, `/abs/path/a.go:7`, `file:///abs/a.ts:1:2` (compilers, linters, test
// runners, stack traces) and `src/a.ts(12,5)` (tsc's default format).
const COLON_FORM =
  /(?:file:\/\/)?((?:\/|\.{1,2}\/)?[\w@+.-]+(?:\/[\w@+.-]+)*\.[A-Za-z0-9]{1,10}):(\d{1,7})(?::(\d{1,5}))?/g;
const PAREN_FORM = /((?:\/|\.{1,2}\/)?[\w@+.-]+(?:\/[\w@+.-]+)*\.[A-Za-z0-9]{1,10})\((\d{1,7}),(\d{1,5})\)/g;

/**
 * The file:line references in a failed check's output that name a file of the checkout, so the
 * stage's check run can annotate them: paths relative to the check's `cwd` or absolute inside
 * `workspace` (both absolute POSIX paths: the action runs on Linux); anything outside it, under `node_modules` or `.git`, or not a file (`isFile`) is
 * left out. In order of appearance, each file and line once, at most `MAX_LOCATIONS_PER_CHECK`.
 */
export function findFailureLocations(
  output: string,
  where: { cwd: string; workspace: string },
  isFile: (absolutePath: string) => boolean,
): FailureLocation[] {
  const text = output.length > SEARCHED_CHARS ? output.slice(-SEARCHED_CHARS) : output;
  const root = resolvePosix("/", where.workspace);
  const found = [...text.matchAll(COLON_FORM), ...text.matchAll(PAREN_FORM)].sort(
    (a, b) => (a.index ?? 0) - (b.index ?? 0),
  );
  const seen = new Set<string>();
  const locations: FailureLocation[] = [];
  for (const match of found) {
    const [, file = "", lineText = "", columnText] = match;
    const absolute = resolvePosix(where.cwd, file);
    if (!absolute.startsWith(`${root}/`)) continue;
    const relative = absolute.slice(root.length + 1);
    if (/(^|\/)(node_modules|\.git)\//.test(relative)) continue;
    const line = Number(lineText);
    if (line < 1) continue;
    const key = `${relative}:${line}`;
    if (seen.has(key) || !isFile(absolute)) continue;
    seen.add(key);
    const column = columnText === undefined ? 0 : Number(columnText);
    locations.push({ path: relative, line, ...(column > 0 ? { column } : {}) });
    if (locations.length === MAX_LOCATIONS_PER_CHECK) break;
  }
  return locations;
}

/** `path.posix.resolve(base, target)` for absolute `base` (src/ does no I/O, not even `node:path`). */
function resolvePosix(base: string, target: string): string {
  const parts: string[] = [];
  for (const part of `${target.startsWith("/") ? "" : base}/${target}`.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}
