import { compileWiringPattern } from "./compile-wiring-pattern.ts";
import { criterionCommand } from "./criterion-command.ts";
import type { Diagnostics } from "./diagnostics.ts";
import type { AcceptanceCriterion } from "./plan.ts";
import type { StageEntry } from "./read-loom-document.ts";
import { describeUnsafePath } from "./unsafe-path.ts";
import type { YamlLocator, YamlPath } from "./yaml-locator.ts";

export const MAX_ACCEPTANCE_COMMAND_LENGTH = 1024;

/** Index of the first control character other than tab, newline and carriage return, or -1. */
export function findControlCharacter(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    if (control && code !== 0x09 && code !== 0x0a && code !== 0x0d) return i;
  }
  return -1;
}

/** Checks one stage's fields: name, paths, acceptance and other commands, wiring patterns. */
export function checkStageFields({ stage, index }: StageEntry, at: YamlLocator, report: Diagnostics): void {
  const path = ["loom", "stages", index] as const;
  const fail = (message: string, where: YamlPath): void =>
    report.error(`stage "${stage.id}": ${message}`, at.value([...path, ...where]), stage.id);

  if (stage.name.trim().length === 0) fail("`name` is empty", ["name"]);

  const checkPath = (value: string, where: YamlPath, what: string, base = stage.working_dir): void => {
    const problem = describeUnsafePath(value, base);
    if (problem) fail(`${what} "${value}" ${problem}`, where);
  };
  checkPath(stage.working_dir, ["working_dir"], "`working_dir`", ".");
  stage.files.forEach((file, i) => checkPath(file, ["files", i], "`files` entry"));
  stage.artifacts.forEach((artifact, i) => checkPath(artifact, ["artifacts", i], "`artifacts` entry"));
  stage.wiring.forEach((wiring, i) => checkPath(wiring.source, ["wiring", i, "source"], "`wiring` source"));

  stage.acceptance.forEach((criterion, i) => {
    const where = typeof criterion === "string" ? ["acceptance", i] : ["acceptance", i, "command"];
    const problem = describeAcceptanceProblem(criterion);
    if (problem) fail(`acceptance #${i + 1} ${problem}`, where);
  });
  const commands: [string, YamlPath][] = [
    ...stage.setup.map((command, i): [string, YamlPath] => [command, ["setup", i]]),
    ...stage.wiring_tests.map((test, i): [string, YamlPath] => [
      test.command,
      ["wiring_tests", i, "command"],
    ]),
    ...stage.before_stage.map((check, i): [string, YamlPath] => [
      check.command,
      ["before_stage", i, "command"],
    ]),
    ...stage.after_stage.map((check, i): [string, YamlPath] => [
      check.command,
      ["after_stage", i, "command"],
    ]),
  ];
  if (stage.dead_code_check) commands.push([stage.dead_code_check.command, ["dead_code_check", "command"]]);
  for (const [command, where] of commands) {
    if (findControlCharacter(command) !== -1)
      fail(`command at ${where.join(".")} contains a control character`, where);
  }

  stage.wiring.forEach((wiring, i) => {
    const compiled = compileWiringPattern(wiring.pattern, { literal: wiring.literal });
    if (!compiled.ok)
      fail(`wiring #${i + 1} has an invalid regex pattern: ${compiled.message}`, ["wiring", i, "pattern"]);
  });
}

/** What is wrong with an acceptance criterion's command, or null when it can run. */
export function describeAcceptanceProblem(criterion: AcceptanceCriterion): string | null {
  const command = criterionCommand(criterion);
  if (command.trim().length === 0) return "has an empty command";
  if (command.length > MAX_ACCEPTANCE_COMMAND_LENGTH) {
    return `command is ${command.length} characters; the limit is ${MAX_ACCEPTANCE_COMMAND_LENGTH}`;
  }
  const control = findControlCharacter(command);
  if (control !== -1) {
    const code = command.charCodeAt(control).toString(16).padStart(4, "0").toUpperCase();
    return `command contains a control character (U+${code}) at position ${control + 1}`;
  }
  return null;
}
