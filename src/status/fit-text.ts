/** GitHub's limits: comment bodies 65,536 characters; check-run summary and text 65,535 each. */
export const COMMENT_MAX = 65_536;
export const CHECK_OUTPUT_MAX = 65_535;
export const CHECK_TITLE_MAX = 255;

const TRUNCATED = "\n\n…(truncated to fit GitHub's size limit)";

/** Cuts `text` to at most `max` characters, saying so; never splits a surrogate pair. */
export function fitText(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = Math.max(0, max - TRUNCATED.length);
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return text.slice(0, cut) + TRUNCATED.slice(0, max - cut);
}

/** The first candidate (most detailed first) that fits, else the last one cut to fit. */
export function pickFitting(candidates: readonly (() => string)[], max: number): string {
  let last = "";
  for (const render of candidates) {
    last = render();
    if (last.length <= max) return last;
  }
  return fitText(last, max);
}
