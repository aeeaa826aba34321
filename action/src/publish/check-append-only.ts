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
