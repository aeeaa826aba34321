import { formatDiagnostics } from "../src/plan/format-diagnostics.ts";
import { buildValidationReport } from "../src/plan/validation-report.ts";
import type { CliCommand } from "./cli-command.ts";
import { EXIT } from "./cli-command.ts";
import { loadPlan } from "./load-plan.ts";
import { parseCommandArgs } from "./parse-command-args.ts";

/** `loom validate <plan.md> [--json]`: exit 0 when the plan is valid, 1 when it is not. */
export const validateCommand: CliCommand = {
  usage: "<plan.md> [--json]",
  summary: "check a plan: every error and warning with its line and column",
  async run(args, io) {
    const { path, values } = parseCommandArgs(args, { json: { type: "boolean" } });
    const result = await loadPlan(path, io);
    const report = buildValidationReport(path, result);
    if (values.json === true) io.stdout(JSON.stringify(report) + "\n");
    else io.stdout(formatDiagnostics(path, report));
    return report.ok ? EXIT.ok : EXIT.failed;
  },
};
