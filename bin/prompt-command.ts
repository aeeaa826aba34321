import path from "node:path";
import { parseArgs } from "node:util";
import { readLearningUses } from "../action/src/knowledge/read-learning-uses.ts";
import { readRepoLearnings } from "../action/src/knowledge/read-repo-learnings.ts";
import { summarizeLearningUses } from "../src/knowledge/learning-stats.ts";
import { readKnowledge } from "../action/src/stage/read-knowledge.ts";
import { makeBranchPrefix } from "../src/orchestrator/step-context.ts";
import { derivePlanId } from "../src/plan/derive-plan-id.ts";
import { SESSION_KINDS } from "../src/stage/stage-status.ts";
import type { SessionKind } from "../src/stage/stage-status.ts";
import { formatDiagnostics } from "../src/plan/format-diagnostics.ts";
import { buildValidationReport } from "../src/plan/validation-report.ts";
import { buildSignal } from "../src/signal/build-signal.ts";
import type { CliCommand } from "./cli-command.ts";
import { EXIT, UsageError } from "./cli-command.ts";
import { loadPlan } from "./load-plan.ts";

/**
 * `loom prompt <plan.md> <stage> [--kind stage|recovery|merge] [--attempt N] [--pr N] [--repo DIR]`:
 * prints the signal a session of that stage would get, offline, with the knowledge and the most
 * relevant learnings of the checkout in DIR (default: the current directory), as the action reads
 * them. Only the runner's own paths differ (shown under `$RUNNER_TEMP`), a recovery's handoff, and
 * the stage branch's pull request number unless `--pr` gives it (`loom/pr-<n>/<plan-id>/<stage-id>`).
 */
export const promptCommand: CliCommand = {
  usage: "<plan.md> <stage> [--kind stage|recovery|merge] [--attempt N] [--pr N] [--repo DIR]",
  summary: "print the prompt a stage session would get",
  help: [
    "Prints the prompt (the signal) a Claude Code session of <stage> would get, with the knowledge",
    "and the most relevant learnings of the checkout in --repo, as the action reads them. Only the",
    "runner's own paths (shown under $RUNNER_TEMP), a recovery's handoff and, without --pr, the",
    "pull request number in the stage branch's name (loom/pr-<n>/<plan-id>/<stage-id>) differ.",
    "",
    "options:",
    "  --kind stage|recovery|merge  which session (default: stage)",
    "  --attempt N                  the attempt number, from 1 (default: 1)",
    "  --pr N                       the plan pull request's number, for the stage branch's name",
    "  --repo DIR                   the repository checkout to read knowledge from (default: .)",
    "  -h, --help                   this help",
    "",
    "exit status: 0 printed, 1 the plan is invalid, 2 bad usage, an unknown stage or an unreadable file",
  ].join("\n"),
  async run(args, io) {
    const { planPath, stageId, kind, attempt, pr, repo } = parsePromptArgs(args);
    const result = await loadPlan(planPath, io);
    if (!result.ok) {
      io.stderr(formatDiagnostics(planPath, buildValidationReport(planPath, result)));
      return EXIT.failed;
    }
    const stage = result.plan.stages.find((s) => s.id === stageId);
    if (!stage) {
      const ids = result.plan.stages.map((s) => s.id).join(", ");
      throw new UsageError(`no stage "${stageId}" in ${planPath}; its stages are: ${ids}`, {
        showUsage: false,
      });
    }
    const workspace = path.resolve(repo);
    // Ranked as the action ranks them: with the use records of the checkout's HEAD (none outside git).
    const { knowledge } = await readKnowledge(
      workspace,
      await readRepoLearnings(workspace),
      derivePlanId(planPath),
      stage,
      summarizeLearningUses(await readLearningUses(workspace, "HEAD")),
    );
    io.stdout(
      buildSignal({
        plan: result.plan,
        stage,
        kind,
        attempt,
        branch: `${makeBranchPrefix(pr ?? "<n>", result.plan.id)}/${stage.id}`,
        knowledge,
        ...(kind === "merge"
          ? {}
          : { learningsFile: `$RUNNER_TEMP/loom-${stage.id}-${attempt}/learnings/learnings.jsonl` }),
      }),
    );
    return EXIT.ok;
  },
};

function parsePromptArgs(args: readonly string[]): {
  planPath: string;
  stageId: string;
  kind: SessionKind;
  attempt: number;
  pr: number | null;
  repo: string;
} {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        kind: { type: "string", default: "stage" },
        attempt: { type: "string", default: "1" },
        pr: { type: "string" },
        repo: { type: "string", default: "." },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  const [planPath, stageId, ...extra] = parsed.positionals;
  if (planPath === undefined) throw new UsageError("missing the plan file argument");
  if (stageId === undefined) throw new UsageError("missing the stage id argument");
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  // A continue session's prompt is built from a person's instructions and the earlier run's
  // artifacts (the action's `loadContinue`), which the command line does not have; a check run
  // (`/loom amend`) runs no session, so it has no prompt.
  const kinds = SESSION_KINDS.filter((k) => k !== "continue" && k !== "check");
  const kind = kinds.find((k) => k === parsed.values.kind);
  if (!kind) throw new UsageError(`--kind must be one of ${kinds.join(", ")}`);
  const attempt = Number(parsed.values.attempt);
  if (!Number.isInteger(attempt) || attempt < 1) throw new UsageError("--attempt must be a whole number ≥ 1");
  const pr = parsed.values.pr === undefined ? null : Number(parsed.values.pr);
  if (pr !== null && (!Number.isInteger(pr) || pr < 1))
    throw new UsageError("--pr must be a pull request number (a whole number ≥ 1)");
  return { planPath, stageId, kind, attempt, pr, repo: parsed.values.repo };
}
