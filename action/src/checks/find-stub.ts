/** Markers that say "not really implemented". */
const STUB_MARKERS: readonly { pattern: RegExp; label: string }[] = [
  { pattern: /\btodo!\s*\(/, label: "todo!()" },
  { pattern: /\bunimplemented!\s*\(/, label: "unimplemented!()" },
  { pattern: /\bpanic!\s*\(\s*"not (yet )?implemented/i, label: 'panic!("not implemented")' },
  {
    pattern: /throw new Error\(\s*["'`]not (yet )?implemented/i,
    label: 'throw new Error("not implemented")',
  },
  { pattern: /\braise NotImplementedError\b/, label: "raise NotImplementedError" },
  { pattern: /\bTODO\b/, label: "TODO" },
  { pattern: /\bFIXME\b/, label: "FIXME" },
];

/** Why a file's text looks like a stub, or null when it looks real. */
export function findStub(text: string): string | null {
  if (text.trim() === "") return "the file is empty";
  if (text.includes("\u0000")) return null; // binary: existence is all we can check
  for (const { pattern, label } of STUB_MARKERS) {
    const match = pattern.exec(text);
    if (match !== null) {
      const line = text.slice(0, match.index).split("\n").length;
      return `contains ${label} at line ${line}`;
    }
  }
  return null;
}
