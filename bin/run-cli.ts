import { z } from "zod";
import packageJson from "../package.json" with { type: "json" };
import type { CliCommand } from "./cli-command.ts";
import { EXIT, UsageError } from "./cli-command.ts";
import type { CliIo } from "./cli-io.ts";
import { graphCommand } from "./graph-command.ts";
import { promptCommand } from "./prompt-command.ts";
import { usageCommand } from "./usage-command.ts";
import { validateCommand } from "./validate-command.ts";

/** The subcommands, in the order `loom --help` lists them. Add one here to add `loom <name>`. */
export const COMMANDS: Readonly<Record<string, CliCommand>> = {
  validate: validateCommand,
  graph: graphCommand,
  prompt: promptCommand,
  usage: usageCommand,
};

/** loom's version, from its package.json. */
export const VERSION = z.object({ version: z.string() }).parse(packageJson).version;

export function formatUsage(commands: Readonly<Record<string, CliCommand>> = COMMANDS): string {
  const rows = Object.entries(commands).map(
    ([name, command]) => [`loom ${name} ${command.usage}`, command.summary] as const,
  );
  const width = Math.max(...rows.map(([left]) => left.length));
  return (
    [
      "usage:",
      ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`),
      "",
      "loom help <command> (or loom <command> --help) explains a command; loom --version prints the version.",
    ].join("\n") + "\n"
  );
}

export function formatCommandHelp(name: string, command: CliCommand): string {
  return `usage: loom ${name} ${command.usage}\n\n${command.summary}.\n\n${command.help}\n`;
}

const HELP_FLAGS = new Set(["--help", "-h"]);

/** Runs `loom <command> …` and returns the exit code: 0 ok, 1 failed, 2 bad usage. */
export async function runCli(
  args: readonly string[],
  io: CliIo,
  commands: Readonly<Record<string, CliCommand>> = COMMANDS,
): Promise<number> {
  const [name, ...rest] = args;
  const find = (key: string | undefined): CliCommand | undefined =>
    key !== undefined && Object.hasOwn(commands, key) ? commands[key] : undefined;
  if (name === "--version" || name === "-v") {
    io.stdout(`loom ${VERSION}\n`);
    return EXIT.ok;
  }
  if (name !== undefined && (HELP_FLAGS.has(name) || name === "help")) {
    const topic = name === "help" ? rest[0] : undefined;
    if (topic === undefined) {
      io.stdout(formatUsage(commands));
      return EXIT.ok;
    }
    const command = find(topic);
    if (!command) {
      io.stderr(`loom help: unknown command "${topic}"\n${formatUsage(commands)}`);
      return EXIT.usage;
    }
    io.stdout(formatCommandHelp(topic, command));
    return EXIT.ok;
  }
  const command = find(name);
  if (name === undefined || !command) {
    io.stderr(
      `loom: ${name === undefined ? "missing command" : `unknown command "${name}"`}\n${formatUsage(commands)}`,
    );
    return EXIT.usage;
  }
  const options = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  if (options.some((arg) => HELP_FLAGS.has(arg))) {
    io.stdout(formatCommandHelp(name, command));
    return EXIT.ok;
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
