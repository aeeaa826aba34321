/** A line a commit brings that none of its parents had. */
export type AddedLine = { path: string; line: number; text: string };

/**
 * The added lines of `git diff-tree -p` output: a plain patch (`parents` = 1) or a combined
 * `--cc` patch of a merge (`parents` ≥ 2), where a line is new only when it is added against
 * every parent (all prefix columns are `+`).
 */
export function parseAddedLines(patch: string, parents: number): AddedLine[] {
  const width = Math.max(1, parents);
  const added: AddedLine[] = [];
  let path = "";
  let inHunk = false;
  let next = 0;
  for (const line of patch.split("\n")) {
    if (
      line.startsWith("diff --git ") ||
      line.startsWith("diff --cc ") ||
      line.startsWith("diff --combined ")
    ) {
      inHunk = false;
      path = line.startsWith("diff --git ") ? "" : line.replace(/^diff --(cc|combined) /, "");
      continue;
    }
    if (!inHunk && line.startsWith("+++ ")) {
      path = unquote(line.slice(4)).replace(/^b\//, "");
      continue;
    }
    if (line.startsWith("@".repeat(width + 1) + " ")) {
      inHunk = true;
      next = Number(/\+(\d+)(?:,\d+)? @+/.exec(line)?.[1] ?? "1");
      continue;
    }
    if (!inHunk || line.startsWith("\\")) continue;
    const prefix = line.slice(0, width);
    if (prefix.length < width || prefix.includes("-")) continue;
    if (/^\++$/.test(prefix)) added.push({ path, line: next, text: line.slice(width) });
    next += 1;
  }
  return added;
}

function unquote(text: string): string {
  return text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}
