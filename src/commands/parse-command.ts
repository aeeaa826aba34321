import { COMMAND_NAMES } from "../orchestrator/events.ts";
import { MAX_ACCEPTANCE_COMMAND_LENGTH } from "../plan/check-stage-fields.ts";
import type { CommandName } from "../orchestrator/events.ts";

/** Commands that act on one stage and need its id. */
export const STAGE_COMMANDS = [
  "retry",
  "skip",
  "block",
  "unblock",
  "cancel",
  "merge",
  "continue",
  "amend",
  "reject",
] as const satisfies readonly CommandName[];
export type StageCommand = (typeof STAGE_COMMANDS)[number];

/** A stage reference as written: `<stage>` or `<plan-id>/<stage>` when a pull request has several plans. */
export type StageRef = { planId: string | null; stageId: string };

export type ParsedCommand =
  /**
   * `sha`: for `merge <stage> <sha>`, the stage commit the person merges (checked later);
   * `instructions`: for `continue`, what the sender asks its resumed session to do;
   * `criterion` and `amendedCommand`: for `amend`, the criterion's number (1-based) and its new command.
   */
  | {
      ok: true;
      command: StageCommand;
      stage: StageRef;
      line: string;
      sha?: string;
      instructions?: string;
      criterion?: number;
      amendedCommand?: string;
      /** `retry <stage> --only`: a completed stage runs again without its dependents. */
      only?: true;
    }
  /**
   * `sha`: for `approve <sha>`, the commit the approver names (checked against the head later);
   * `amountUsd`: for `budget +<usd>`, what to add to the plan's budget.
   */
  | { ok: true; command: Exclude<CommandName, StageCommand>; line: string; sha?: string; amountUsd?: number }
  | {
      ok: false;
      reason:
        | "unknown-command"
        | "missing-stage"
        | "unexpected-argument"
        | "bad-amount"
        | "missing-instructions"
        | "instructions-too-long"
        | "bad-amendment";
      line: string;
    };

/** The most one `/loom budget +<usd>` adds. */
export const MAX_BUDGET_RAISE_USD = 10_000;

const COMMAND_LINE = /^\/loom(?:\s+(.*))?$/;
const CONTINUE_LINE = /^\/loom\s+continue\s+(\S+)(?:\s+([\s\S]*))?$/i;
const AMEND_LINE = /^\/loom\s+amend(?:\s+(\S+))?(?:\s+(\S+))?(?:\s+(.*))?$/i;

/**
 * Finds `/loom …` commands in a comment body: one per line that starts with `/loom`. Lines
 * inside fenced code blocks and quoted lines (`>`) are not commands, so quoting a command or
 * loom's own help text never triggers anything. `/loom continue <stage>` takes the rest of its
 * line as the instructions, or, when nothing follows the stage, the lines after it up to the next
 * `/loom` line (code blocks in them are kept).
 */
export function parseCommands(body: string): ParsedCommand[] {
  const commands: ParsedCommand[] = [];
  const lines = body.split(/\r?\n/);
  let inFence = false;
  for (let index = 0; index < lines.length; index++) {
    const line = (lines[index] ?? "").trim();
    if (/^(```|~~~)/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const match = COMMAND_LINE.exec(line);
    if (match === null) continue;
    const resume = CONTINUE_LINE.exec(line);
    if (resume !== null) {
      const inline = resume[2]?.trim() ?? "";
      const following = inline === "" ? takeFollowingLines(lines, index + 1) : [];
      index += following.length;
      commands.push(parseContinue(line, resume[1] ?? "", inline === "" ? following.join("\n") : inline));
      continue;
    }
    const amend = AMEND_LINE.exec(line);
    if (amend !== null) {
      commands.push(parseAmend(line, amend[1], amend[2], amend[3]));
      continue;
    }
    commands.push(parseCommandWords(line, (match[1] ?? "").trim().split(/\s+/).filter(Boolean)));
  }
  return commands;
}

/** The most characters of instructions one `/loom continue` carries. */
export const MAX_CONTINUE_INSTRUCTIONS = 4000;

/** The lines from `start` up to the next `/loom` line outside a code block (they are its instructions). */
function takeFollowingLines(lines: readonly string[], start: number): string[] {
  const taken: string[] = [];
  let inFence = false;
  for (const raw of lines.slice(start)) {
    const line = raw.trim();
    if (/^(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence && COMMAND_LINE.test(line)) break;
    taken.push(raw.trimEnd());
  }
  return taken;
}

/**
 * `/loom continue <stage> <instructions>`: the instructions as written, one pair of surrounding
 * quotes removed, control characters other than line breaks and tabs dropped.
 */
function parseContinue(line: string, ref: string, written: string): ParsedCommand {
  const text = dropControlCharacters(unquote(written.trim())).trim();
  if (text === "") return { ok: false, reason: "missing-instructions", line };
  if (text.length > MAX_CONTINUE_INSTRUCTIONS) return { ok: false, reason: "instructions-too-long", line };
  return { ok: true, command: "continue", stage: parseStageRef(ref), line, instructions: text };
}

/**
 * `/loom amend <stage> <n> <command>`: criterion n (1-based, as the check run numbers them) is the
 * rest of the line, one pair of surrounding quotes or backticks removed.
 */
function parseAmend(
  line: string,
  ref: string | undefined,
  number: string | undefined,
  written: string | undefined,
): ParsedCommand {
  if (ref === undefined) return { ok: false, reason: "missing-stage", line };
  const criterion = /^#?([1-9][0-9]{0,2})$/.exec(number ?? "")?.[1];
  const text = dropControlCharacters(unquote(unquoteCode(written?.trim() ?? ""))).trim();
  if (criterion === undefined || text === "" || text.length > MAX_ACCEPTANCE_COMMAND_LENGTH)
    return { ok: false, reason: "bad-amendment", line };
  return {
    ok: true,
    command: "amend",
    stage: parseStageRef(ref),
    line,
    criterion: Number(criterion),
    amendedCommand: text,
  };
}

/** `` `text` `` without its backticks (one pair). */
function unquoteCode(text: string): string {
  return text.length >= 2 && text.startsWith("`") && text.endsWith("`") ? text.slice(1, -1) : text;
}

/** The text without control characters other than tab and newline. */
function dropControlCharacters(text: string): string {
  return [...text]
    .filter((char) => {
      const code = char.charCodeAt(0);
      return !(code < 0x20 || (code >= 0x7f && code <= 0x9f)) || char === "\t" || char === "\n";
    })
    .join("");
}

const QUOTE_PAIRS: readonly (readonly [string, string])[] = [
  ['"', '"'],
  ["'", "'"],
  ["\u201C", "\u201D"],
  ["\u2018", "\u2019"],
];

function unquote(text: string): string {
  for (const [open, close] of QUOTE_PAIRS)
    if (text.length >= 2 && text.startsWith(open) && text.endsWith(close)) return text.slice(1, -1);
  return text;
}

function parseCommandWords(line: string, words: string[]): ParsedCommand {
  const [name, ...args] = words;
  if (name === undefined) return { ok: true, command: "help", line };
  const command = COMMAND_NAMES.find((known) => known === name.toLowerCase());
  if (command === undefined) return { ok: false, reason: "unknown-command", line };
  if (isStageCommand(command)) {
    const [ref, ...extra] = args;
    if (ref === undefined) return { ok: false, reason: "missing-stage", line };
    const stage = parseStageRef(ref);
    if (command === "retry" && extra.length === 1 && extra[0]?.toLowerCase() === "--only")
      return { ok: true, command, stage, line, only: true };
    const [sha, ...more] = command === "merge" ? extra : [undefined, ...extra];
    if (more.length > 0) return { ok: false, reason: "unexpected-argument", line };
    return sha === undefined
      ? { ok: true, command, stage, line }
      : { ok: true, command, stage, line, sha: sha.replace(/^`|`$/g, "") };
  }
  if (command === "budget") {
    const amount = args.length === 1 ? parseBudgetRaise(args[0] ?? "") : null;
    if (amount === null) return { ok: false, reason: "bad-amount", line };
    return { ok: true, command, line, amountUsd: amount };
  }
  if (command === "rerun") {
    // `/loom rerun affected`: the only thing a rerun names, so a typo never re-runs anything.
    if (args.length !== 1 || args[0]?.toLowerCase() !== "affected")
      return { ok: false, reason: "unexpected-argument", line };
    return { ok: true, command, line };
  }
  if (command === "approve" && args.length === 1 && args[0] !== undefined) {
    return { ok: true, command, line, sha: args[0].replace(/^`|`$/g, "") };
  }
  if (args.length > 0) return { ok: false, reason: "unexpected-argument", line };
  return { ok: true, command, line };
}

/** `+5`, `+$2.50`, `+0.5`: a positive amount of US dollars up to `MAX_BUDGET_RAISE_USD`, or null. */
export function parseBudgetRaise(text: string): number | null {
  const match = /^\+\$?([0-9]{1,6}(?:\.[0-9]{1,2})?)$/.exec(text.replace(/^`|`$/g, ""));
  if (match === null) return null;
  const amount = Number(match[1]);
  return amount > 0 && amount <= MAX_BUDGET_RAISE_USD ? amount : null;
}

export function isStageCommand(command: CommandName): command is StageCommand {
  return (STAGE_COMMANDS as readonly string[]).includes(command);
}

export function parseStageRef(ref: string): StageRef {
  const cleaned = ref.replace(/^`|`$/g, "");
  const slash = cleaned.lastIndexOf("/");
  if (slash <= 0) return { planId: null, stageId: cleaned };
  return { planId: cleaned.slice(0, slash), stageId: cleaned.slice(slash + 1) };
}
