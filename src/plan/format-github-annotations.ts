import { summarizeReport } from "./format-diagnostics.ts";
import type { ValidationReport } from "./validation-report.ts";

/**
 * A validation as GitHub Actions workflow commands: one `::error` or `::warning` per diagnostic
 * with `file`, `line`, `col` and `title`, which GitHub shows as annotations on the file (in the
 * job summary and, for files the pull request changes, in its diff), then the summary as a plain
 * log line. `path` should be relative to the repository root for GitHub to place them.
 */
export function formatGithubAnnotations(path: string, report: ValidationReport): string {
  const title = `loom: ${report.plan.id}`;
  const lines = [
    ...report.errors.map((d) => ({ ...d, command: "error" })),
    ...report.warnings.map((d) => ({ ...d, command: "warning" })),
  ]
    .sort((a, b) => a.line - b.line || a.column - b.column)
    .map((d) =>
      formatWorkflowCommand(d.command, { title, file: path, line: d.line, col: d.column }, d.message),
    );
  lines.push(`${path}: ${summarizeReport(report)}`);
  return lines.join("\n") + "\n";
}

/**
 * `::name key=value,…::message`, escaped as GitHub's runner unescapes it (actions/toolkit
 * `packages/core/src/command.ts`): in the message `%`, CR and LF; in property values also `:` and
 * `,`, which would otherwise end the value.
 */
export function formatWorkflowCommand(
  name: string,
  properties: Readonly<Record<string, string | number>>,
  message: string,
): string {
  const props = Object.entries(properties)
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(",");
  return `::${name}${props ? ` ${props}` : ""}::${escapeData(message)}`;
}

export function escapeData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(":", "%3A").replaceAll(",", "%2C");
}
