/**
 * Wrap text that is data, not instructions, in a named tag. A closing tag inside the text is
 * defused so the data cannot end its own fence early.
 */
export function fenceData(tag: string, text: string): string {
  const defused = text.replaceAll(`</${tag}>`, `<\\/${tag}>`);
  return `<${tag}>\n${defused.trim()}\n</${tag}>`;
}
