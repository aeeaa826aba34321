import { parseArgs } from "node:util";
import { SESSION_KINDS } from "../src/stage/stage-status.ts";
import type { SessionKind } from "../src/stage/stage-status.ts";
import { formatDiagnostics } from "../src/plan/format-diagnostics.ts";
import { buildValidationReport } from "../src/plan/validation-report.ts";
import { buildSignal } from "../src/signal/build-signal.ts";
import type { CliCommand } from "./cli-command.ts";
import { EXIT, UsageError } from "./cli-command.ts";
import { loadPlan } from "./load-plan.ts";

/**
 * `loom prompt <plan.md> <stage> [--kind stage|recovery|merge] [--attempt N]`: prints the exact
 * signal a session of that stage would get, offline.
 */
export const promptCommand: CliCommand = {
  usage: "<plan.md> <stage> [--kind stage|recovery|merge] [--attempt N]",
  summary: "print the prompt a stage session would get",
  async run(args, io) {
    const { path, stageId, kind, attempt } = parsePromptArgs(args);
    const result = await loadPlan(path, io);
    if (!result.ok) {
      io.stderr(formatDiagnostics(path, buildValidationReport(path, result)));
      return EXIT.failed;
    }
    const stage = result.plan.stages.find((s) => s.id === stageId);
    if (!stage) {
      const ids = result.plan.stages.map((s) => s.id).join(", ");
      throw new UsageError(`no stage "${stageId}" in ${path}; its stages are: ${ids}`, { showUsage: false });
    }
    io.stdout(buildSignal({ plan: result.plan, stage, kind, attempt }));
    return EXIT.ok;
  },
};

function parsePromptArgs(args: readonly string[]): {
  path: string;
  stageId: string;
  kind: SessionKind;
  attempt: number;
} {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { kind: { type: "string", default: "stage" }, attempt: { type: "string", default: "1" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  const [path, stageId, ...extra] = parsed.positionals;
  if (path === undefined) throw new UsageError("missing the plan file argument");
  if (stageId === undefined) throw new UsageError("missing the stage id argument");
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const kind = SESSION_KINDS.find((k) => k === parsed.values.kind);
  if (!kind) throw new UsageError(`--kind must be one of ${SESSION_KINDS.join(", ")}`);
  const attempt = Number(parsed.values.attempt);
  if (!Number.isInteger(attempt) || attempt < 1) throw new UsageError("--attempt must be a whole number ≥ 1");
  return { path, stageId, kind, attempt };
}
