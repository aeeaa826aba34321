import type { CliIo } from "./cli-io.ts";

/** One `loom <name> …` subcommand. `run` returns the exit code: 0 ok, 1 failed, 2 bad usage. */
export type CliCommand = {
  /** Arguments after the command name, for the usage text (e.g. `<plan.md> [--json]`). */
  usage: string;
  summary: string;
  /** What `loom <name> --help` prints after the usage line: what it does, its options, exit codes. */
  help: string;
  run(args: readonly string[], io: CliIo): Promise<number>;
};

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/**
 * Thrown by commands for bad arguments or an unreadable plan path; `runCli` prints the message
 * (and, for bad arguments, the usage) on stderr and exits 2.
 */
export class UsageError extends Error {
  override name = "UsageError";
  readonly showUsage: boolean;
  constructor(message: string, options: { cause?: unknown; showUsage?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.showUsage = options.showUsage ?? true;
  }
}
