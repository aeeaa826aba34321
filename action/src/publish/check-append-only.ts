/**
 * Whether `after` only appends to `before`: every existing line kept as it was, new lines at
 * the end. A last line without a newline may not be extended in place.
 */
export function isAppendOnly(before: string, after: string): boolean {
  if (before === "" || before === after) return true;
  const kept = before.endsWith("\n") ? before : `${before}\n`;
  return after.startsWith(kept);
}

/**
 * For a merge: every parent's lines survive in the result, in order (each side may have
 * appended its own lines; the resolution may interleave them but not drop or edit any).
 */
export function keepsAllLines(parent: string, merged: string): boolean {
  const wanted = splitLines(parent);
  const lines = splitLines(merged);
  let at = 0;
  for (const line of lines) {
    if (at < wanted.length && line === wanted[at]) at += 1;
  }
  return at === wanted.length;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
}

/**
 * For a merge into the learnings log: the result only combines its parents (every parent's lines
 * kept, no line that no parent has). Deleting a file a parent has is not combining.
 */
export function onlyCombinesParents(parents: readonly (string | null)[], merged: string | null): boolean {
  const present = parents.filter((parent): parent is string => parent !== null);
  if (merged === null) return present.length === 0;
  if (!present.every((parent) => keepsAllLines(parent, merged))) return false;
  const known = new Set(present.flatMap((parent) => splitLines(parent)));
  return splitLines(merged).every((line) => known.has(line));
}
