import { buildGraph } from "../src/graph/build-graph.ts";
import { renderMermaid } from "../src/graph/render-mermaid.ts";
import { formatDiagnostics } from "../src/plan/format-diagnostics.ts";
import { buildValidationReport } from "../src/plan/validation-report.ts";
import type { CliCommand } from "./cli-command.ts";
import { EXIT } from "./cli-command.ts";
import { loadPlan } from "./load-plan.ts";
import { parseCommandArgs } from "./parse-command-args.ts";

/** `loom graph <plan.md>`: the stage DAG as a mermaid `graph TD`; an invalid plan prints its errors. */
export const graphCommand: CliCommand = {
  usage: "<plan.md>",
  summary: "print the stage graph as mermaid",
  help: [
    "Prints the plan's stages and dependencies as a mermaid `graph TD` on stdout (GitHub renders it",
    "in a ```mermaid block). An invalid plan prints its errors on stderr instead.",
    "",
    "options:",
    "  -h, --help  this help",
    "",
    "exit status: 0 printed, 1 the plan is invalid, 2 bad usage or the file cannot be read",
  ].join("\n"),
  async run(args, io) {
    const { path } = parseCommandArgs(args, {});
    const result = await loadPlan(path, io);
    if (!result.ok) {
      io.stderr(formatDiagnostics(path, buildValidationReport(path, result)));
      return EXIT.failed;
    }
    io.stdout(renderMermaid(buildGraph(result.plan.stages)));
    return EXIT.ok;
  },
};
