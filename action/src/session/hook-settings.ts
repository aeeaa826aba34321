/** Where loom's hook programs are: `hooks/*.ts` in the repository, `action/dist/hooks/*.js` when bundled. */
export type HookPrograms = {
  dir: string;
  extension: "ts" | "js";
  /** The Node binary that runs them (`process.execPath`). */
  nodePath: string;
  /** Seconds Claude Code waits for one hook. */
  timeoutSeconds?: number;
};

export const HOOK_EVENTS = {
  PostToolUse: "post-tool-use",
  PreCompact: "pre-compact",
  Stop: "stop",
  SessionStart: "session-start",
} as const;
export type HookEvent = keyof typeof HOOK_EVENTS;

type HookCommand = { type: "command"; command: string; timeout: number };
export type HookSettings = { hooks: Record<HookEvent, { matcher?: string; hooks: HookCommand[] }[]> };

/** Quotes a word for `sh` (Claude Code runs hook commands through a shell). */
export function quoteShellWord(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The `--settings` JSON that installs loom's hooks, and only them (pair with `--setting-sources ""`). */
export function buildHookSettings(programs: HookPrograms): HookSettings {
  const timeout = programs.timeoutSeconds ?? 30;
  const command = (event: HookEvent): HookCommand => ({
    type: "command",
    command: `${quoteShellWord(programs.nodePath)} ${quoteShellWord(`${programs.dir}/${HOOK_EVENTS[event]}.${programs.extension}`)}`,
    timeout,
  });
  return {
    hooks: {
      PostToolUse: [{ matcher: "*", hooks: [command("PostToolUse")] }],
      PreCompact: [{ hooks: [command("PreCompact")] }],
      Stop: [{ hooks: [command("Stop")] }],
      SessionStart: [{ hooks: [command("SessionStart")] }],
    },
  };
}
