/**
 * The shell commands a markdown page shows, as a reader would copy them:
 *
 * - every line of a fenced `sh`, `bash` or `shell` block (a trailing `# comment` is the reader's
 *   note, not part of the command; a line ending in `\` continues on the next);
 * - every `$ ` line of a fenced `console` block, with the lines under it as the output it shows;
 * - every inline code span (outside fences) that starts with one of loom's own entry points
 *   (`COUNTED_PREFIXES`), unless it is a template: a span holding `<placeholder>` or `…` cannot
 *   run as written, and says so to the reader.
 *
 * Commands joined by `&&` are separate commands, each accounted for on its own.
 */

export type DocCommand = {
  /** The command as written, without its comment, spaces collapsed. */
  text: string;
  file: string;
  line: number;
  from: "block" | "inline";
  /** What a `console` block shows the command printing, line by line; undefined elsewhere. */
  output?: string[];
};

/** Inline spans counted as commands: loom's own entry points, not third-party tools (`gh`, `sqlite3`). */
export const COUNTED_PREFIXES = [
  "node bin/",
  "node app/",
  "node scripts/",
  "npx loom",
  "npm ",
  ".ci/run",
  "docker compose",
];

const SHELL_INFOS = new Set(["sh", "bash", "shell"]);
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/;
const INLINE = /``\s?(.+?)\s?``|`([^`]+)`/g;

/** A command line's text: its trailing comment dropped, runs of spaces collapsed, trimmed. */
export function normalizeCommand(line: string): string {
  return line
    .replace(/\s+#\s.*$/, "")
    .replace(/\s+/g, " ")
    .trim();
}

function splitAnd(text: string): string[] {
  return text
    .split(" && ")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

function isTemplate(text: string): boolean {
  return /<[^>\s]+>/.test(text) || text.includes("…");
}

type Fence = { marker: string; indent: number; info: string };
type Shown = { text: string; line: number; output: string[] };

/** Every command `markdown` (the text of `file`) shows, in order. */
export function extractDocCommands(markdown: string, file: string): DocCommand[] {
  const commands: DocCommand[] = [];
  const add = (text: string, line: number, from: DocCommand["from"], output?: string[]) => {
    for (const part of splitAnd(text))
      commands.push({ text: part, file, line, from, ...(output === undefined ? {} : { output }) });
  };
  const addShown = (shown: Shown | null) => {
    if (shown) add(shown.text, shown.line, "block", shown.output);
  };
  let fence: Fence | null = null;
  let continued = "";
  let shown: Shown | null = null;
  for (const [index, raw] of markdown.split("\n").entries()) {
    const lineNo = index + 1;
    if (fence === null) {
      const open = FENCE.exec(raw);
      if (open) fence = { marker: open[2] ?? "```", indent: open[1]?.length ?? 0, info: open[3] ?? "" };
      else addInline(raw, lineNo, add);
      continue;
    }
    const trimmed = raw.trim();
    if (trimmed.startsWith(fence.marker) && /^(`+|~+)$/.test(trimmed)) {
      addShown(shown);
      shown = null;
      fence = null;
      continue;
    }
    const text = raw.slice(Math.min(fence.indent, raw.length - raw.trimStart().length));
    if (SHELL_INFOS.has(fence.info)) {
      const joined = continued + text;
      continued = joined.endsWith("\\") ? `${joined.slice(0, -1)} ` : "";
      const command = normalizeCommand(joined);
      if (continued === "" && command !== "" && !command.startsWith("#")) add(command, lineNo, "block");
    } else if (fence.info === "console") {
      if (text.startsWith("$ ")) {
        addShown(shown);
        shown = { text: normalizeCommand(text.slice(2)), line: lineNo, output: [] };
      } else shown?.output.push(text);
    }
  }
  return commands;
}

function addInline(
  line: string,
  lineNo: number,
  add: (text: string, line: number, from: DocCommand["from"]) => void,
): void {
  for (const match of line.matchAll(INLINE)) {
    const span = normalizeCommand(match[1] ?? match[2] ?? "");
    if (COUNTED_PREFIXES.some((prefix) => span.startsWith(prefix)) && !isTemplate(span))
      add(span, lineNo, "inline");
  }
}
