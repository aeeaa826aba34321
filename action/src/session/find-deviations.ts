const DEVIATION = /\[DEVIATION Rule (\d+):[^\]\n]{1,1000}\]/g;

/** `[DEVIATION Rule N: …]` markers in a text, in order, each once. */
export function findDeviations(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(DEVIATION), (m) => m[0]))];
}
