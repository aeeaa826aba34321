import { parseArgs } from "node:util";
import { derivePlanId } from "../src/plan/derive-plan-id.ts";
import { formatDiagnostics } from "../src/plan/format-diagnostics.ts";
import { formatGithubAnnotations, formatWorkflowCommand } from "../src/plan/format-github-annotations.ts";
import type { ValidationReport } from "../src/plan/validation-report.ts";
import type { CliCommand } from "./cli-command.ts";
import { EXIT, UsageError } from "./cli-command.ts";
import type { Validation } from "./validate-paths.ts";
import { validatePaths } from "./validate-paths.ts";

const FORMATS = ["text", "json", "github"] as const;
type Format = (typeof FORMATS)[number];

/**
 * `loom validate <plan.md|dir>... [--json | --format text|json|github]`: exit 0 when every plan is
 * valid, 1 when one is not, 2 for bad usage or a path that cannot be read.
 */
export const validateCommand: CliCommand = {
  usage: "<plan.md|dir>... [--json | --format text|json|github]",
  summary: "check plans: every error and warning with its line and column",
  help: [
    "Checks plan files offline, as the App does when a pull request adds them. A directory is",
    "searched recursively for PLAN-*.md, IN_PROGRESS-PLAN-*.md and DONE-PLAN-*.md (skipping .git",
    "and node_modules); a directory without plans is an error.",
    "",
    "options:",
    "  --format text    path:line:column: error|warning: message, then a summary per plan (default)",
    "  --format json    one JSON document. For one file: {ok, plan, stages, errors, warnings};",
    "                   otherwise: {ok, plans: [{path, ok, plan, stages, errors, warnings}],",
    "                   errors: [{path, message}]}, where errors lists paths that could not be read",
    "  --format github  GitHub Actions annotations (::error file=…,line=…,col=…::message) for a",
    "                   workflow step; run it from the repository root so the paths match",
    "  --json           the same as --format json",
    "  -h, --help       this help",
    "",
    "exit status: 0 every plan is valid, 1 a plan is invalid, 2 bad usage or a path cannot be read",
  ].join("\n"),
  async run(args, io) {
    const { paths, format } = parseValidateArgs(args);
    const validation = await validatePaths(paths, io);
    io.stdout(render(validation, format));
    if (format === "text")
      for (const { message } of validation.unreadable) io.stderr(`loom validate: ${message}\n`);
    if (validation.unreadable.length > 0) return EXIT.usage;
    return validation.checked.every((c) => c.report.ok) ? EXIT.ok : EXIT.failed;
  },
};

function render({ checked, unreadable, singleFile }: Validation, format: Format): string {
  switch (format) {
    case "json":
      return (
        JSON.stringify(singleFile ? singleReport(checked, unreadable) : manyReports(checked, unreadable)) +
        "\n"
      );
    case "github":
      return [
        ...checked.map(({ path, report }) => formatGithubAnnotations(path, report)),
        ...unreadable.map(({ message }) => formatWorkflowCommand("error", { title: "loom" }, message) + "\n"),
      ].join("");
    case "text":
      return [
        ...checked.map(({ path, report }) => formatDiagnostics(path, report)),
        checked.length > 1 ? summarizeAll(checked.map((c) => c.report)) : "",
      ].join("");
  }
}

/**
 * One file's report, the shape `--json` always printed for one file. A file that cannot be read
 * is a report whose one error (at 1:1, pointing at the file, like a missing METADATA block) says so.
 */
function singleReport(
  checked: Validation["checked"],
  unreadable: Validation["unreadable"],
): ValidationReport {
  const [first] = checked;
  if (first) return first.report;
  const path = unreadable[0]?.path ?? "";
  const message = unreadable[0]?.message ?? "";
  const id = derivePlanId(path);
  return {
    ok: false,
    plan: { id, name: id },
    stages: [],
    errors: [{ message, line: 1, column: 1 }],
    warnings: [],
  };
}

function manyReports(checked: Validation["checked"], unreadable: Validation["unreadable"]) {
  return {
    ok: unreadable.length === 0 && checked.every((c) => c.report.ok),
    plans: checked.map(({ path, report }) => ({ path, ...report })),
    errors: unreadable,
  };
}

function summarizeAll(reports: readonly ValidationReport[]): string {
  const invalid = reports.filter((r) => !r.ok).length;
  return `${reports.length} plans: ${reports.length - invalid} valid, ${invalid} invalid\n`;
}

function parseValidateArgs(args: readonly string[]): { paths: string[]; format: Format } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { json: { type: "boolean" }, format: { type: "string" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  const { json, format: asked } = parsed.values;
  if (parsed.positionals.length === 0) throw new UsageError("missing the plan file or directory argument");
  const format = asked === undefined ? (json ? "json" : "text") : FORMATS.find((f) => f === asked);
  if (format === undefined)
    throw new UsageError(`--format must be one of ${FORMATS.join(", ")}, got "${asked}"`);
  if (json && format !== "json") throw new UsageError(`--json and --format ${format} contradict each other`);
  return { paths: parsed.positionals, format };
}
