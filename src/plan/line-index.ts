import type { Location } from "./plan.ts";

/** Where each line of a text starts, to turn string offsets into 1-based line and column. */
export type LineIndex = { readonly starts: readonly number[] };

export function createLineIndex(text: string): LineIndex {
  const starts = [0];
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
  return { starts };
}

/** The 1-based line and column (in UTF-16 code units) of a string offset. */
export function locateOffset(index: LineIndex, offset: number): Location {
  const { starts } = index;
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((starts[middle] ?? 0) <= offset) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, column: offset - (starts[low] ?? 0) + 1 };
}
