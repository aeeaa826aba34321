import { parseArgs } from "node:util";
import type { ParseArgsOptionsConfig } from "node:util";
import { UsageError } from "./cli-command.ts";

/**
 * Parses a subcommand's arguments: exactly one path and the given flags. Anything else (a
 * missing or extra path, an unknown flag) is a `UsageError`.
 */
export function parseCommandArgs<T extends ParseArgsOptionsConfig>(
  args: readonly string[],
  options: T,
): { path: string; values: Record<string, string | boolean | (string | boolean)[] | undefined> } {
  const parsed = parseFlags(args, options, true);
  const [path, ...extra] = parsed.positionals;
  if (path === undefined) throw new UsageError("missing the plan file argument");
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  return { path, values: parsed.values };
}

/** `parseArgs` in strict mode, its complaints (an unknown flag, a missing value) as `UsageError`s. */
export function parseFlags<T extends ParseArgsOptionsConfig>(
  args: readonly string[],
  options: T,
  allowPositionals = false,
): ReturnType<typeof parseArgs<{ options: T; allowPositionals: boolean; strict: true }>> {
  try {
    return parseArgs({ args: [...args], options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}
