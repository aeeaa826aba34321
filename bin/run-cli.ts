import type { CliCommand } from "./cli-command.ts";
import { EXIT, UsageError } from "./cli-command.ts";
import type { CliIo } from "./cli-io.ts";
import { graphCommand } from "./graph-command.ts";
import { promptCommand } from "./prompt-command.ts";
import { validateCommand } from "./validate-command.ts";

/** The subcommands, in the order `loom --help` lists them. Add one here to add `loom <name>`. */
export const COMMANDS: Readonly<Record<string, CliCommand>> = {
  validate: validateCommand,
  graph: graphCommand,
  prompt: promptCommand,
};

export function formatUsage(commands: Readonly<Record<string, CliCommand>> = COMMANDS): string {
  const rows = Object.entries(commands).map(
    ([name, command]) => [`loom ${name} ${command.usage}`, command.summary] as const,
  );
  const width = Math.max(...rows.map(([left]) => left.length));
  return ["usage:", ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`)].join("\n") + "\n";
}

/** Runs `loom <command> …` and returns the exit code: 0 ok, 1 failed, 2 bad usage. */
export async function runCli(
  args: readonly string[],
  io: CliIo,
  commands: Readonly<Record<string, CliCommand>> = COMMANDS,
): Promise<number> {
  const [name, ...rest] = args;
  if (name === "--help" || name === "-h" || name === "help") {
    io.stdout(formatUsage(commands));
    return EXIT.ok;
  }
  const command = name === undefined ? undefined : Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    io.stderr(
      `loom: ${name === undefined ? "missing command" : `unknown command "${name}"`}\n${formatUsage(commands)}`,
    );
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const usage = error.showUsage ? `usage: loom ${name} ${command.usage}\n` : "";
    io.stderr(`loom ${name}: ${error.message}\n${usage}`);
    return EXIT.usage;
  }
}
