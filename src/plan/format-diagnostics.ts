import type { ValidationReport } from "./validation-report.ts";

/**
 * The human form of a validation: one `path:line:column: error|warning: message` line per
 * diagnostic in file order (the way compilers print, so editors can jump to them), then a summary.
 */
export function formatDiagnostics(path: string, report: ValidationReport): string {
  const lines = [
    ...report.errors.map((d) => ({ ...d, severity: "error" as const })),
    ...report.warnings.map((d) => ({ ...d, severity: "warning" as const })),
  ]
    .sort(
      (a, b) =>
        a.line - b.line ||
        a.column - b.column ||
        (a.severity === b.severity ? 0 : a.severity === "error" ? -1 : 1),
    )
    .map((d) => `${path}:${d.line}:${d.column}: ${d.severity}: ${d.message}`);
  lines.push(`${path}: ${summarizeReport(report)}`);
  return lines.join("\n") + "\n";
}

/** `valid plan "Name": 3 stages on 2 levels, 1 warning` or `invalid plan: 2 errors, 0 warnings`. */
export function summarizeReport(report: ValidationReport): string {
  const warnings = count(report.warnings.length, "warning");
  if (!report.ok) return `invalid plan: ${count(report.errors.length, "error")}, ${warnings}`;
  const levels = new Set(report.stages.map((stage) => stage.level)).size;
  return `valid plan "${report.plan.name}": ${count(report.stages.length, "stage")} on ${count(levels, "level")}, ${warnings}`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
