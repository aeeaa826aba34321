import {
  CARRIED_RESULT_FILE,
  PUBLISH_ARTIFACT,
  PUBLISH_RESULT_FILE,
  PublishResult,
} from "../../src/artifacts/publish-result.ts";
import { StageResult } from "../../src/artifacts/stage-result.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { toSessionReport } from "../../src/orchestrator/session-report.ts";
import { decideRunOutcome } from "./decide-run-outcome.ts";
import type { DecidedOutcome } from "./decide-run-outcome.ts";
import { toEffectError } from "./effect-context.ts";
import type { ReaderContext } from "./effect-context.ts";
import { readConditional } from "./read-conditional.ts";
import {
  findNewestArtifact,
  listRunArtifacts,
  parseArtifactJson,
  readArtifactFile,
} from "./run-artifacts.ts";
import type { RunArtifact } from "./run-artifacts.ts";

export const RESULT_ARTIFACT = "loom-result";
export const RESULT_FILE = "loom-result.json";

export type RunReading = {
  runId: number;
  status: string | null;
  conclusion: string | null;
  htmlUrl: string;
  /** The run's title (`run-name`), which carries the dispatch key. */
  title: string;
  result: StageResult | null;
  publish: PublishResult | null;
  /** Artifacts that were there but could not be used. */
  problems: string[];
  /** How it ended; null while the run is not completed. */
  finished: DecidedOutcome | null;
};

const LABEL = "readRunOutcome";

async function readArtifact<T>(
  ctx: ReaderContext,
  artifacts: readonly RunArtifact[],
  name: string,
  file: string,
  schema: Parameters<typeof parseArtifactJson<T>>[1],
  problems: string[],
): Promise<T | null> {
  const artifact = findNewestArtifact(artifacts, name);
  if (!artifact) return null;
  const parsed = parseArtifactJson(await readArtifactFile(ctx, LABEL, artifact, file), schema);
  if (parsed.ok) return parsed.value;
  problems.push(`${name}: ${parsed.reason}`);
  return null;
}

/**
 * The run's result as the publish job carried it in `loom-publish` (one download for both); null
 * when that artifact does not hold a valid one (a run without a publish job, a workflow older than
 * loom 0.4): the run's own `loom-result` is read then.
 */
async function readCarriedResult(
  ctx: ReaderContext,
  artifacts: readonly RunArtifact[],
): Promise<StageResult | null> {
  const artifact = findNewestArtifact(artifacts, PUBLISH_ARTIFACT);
  if (!artifact) return null;
  const file = await readArtifactFile(ctx, LABEL, artifact, CARRIED_RESULT_FILE, { exact: true });
  const parsed = parseArtifactJson(file, StageResult);
  return parsed.ok ? parsed.value : null;
}

/** A run as a `workflow_run` webhook showed it (signed by GitHub): what the reading needs of it. */
export type SeenRun = {
  status: string | null;
  conclusion: string | null;
  html_url: string;
  display_title: string;
};

/**
 * Reads a run (conditional GET; not read again when `seen`, a `workflow_run` webhook, says it completed) and, once it is completed, its newest `loom-publish` artifact,
 * which carries the run's result too (else its `loom-result`), and decides how it ended. API
 * calls: 1 while the run is going (free when unchanged); 2 once it finished (list artifacts, one
 * download) plus the run's read unless a webhook showed it completed, 1 more when the run's result
 * has to be read from its own artifact.
 */
export async function readRunOutcome(ctx: ReaderContext, runId: number, seen?: SeenRun): Promise<RunReading> {
  let run: SeenRun;
  if (seen?.status === "completed") run = seen;
  else {
    try {
      ({ data: run } = await readConditional(ctx, LABEL, `run:${ctx.owner}/${ctx.repo}:${runId}`, (headers) =>
        ctx.octokit.rest.actions.getWorkflowRun({ owner: ctx.owner, repo: ctx.repo, run_id: runId, headers }),
      ));
    } catch (error) {
      throw toEffectError(`reading run ${runId}`, error);
    }
  }
  const reading = {
    runId,
    status: run.status,
    conclusion: run.conclusion,
    htmlUrl: run.html_url,
    title: run.display_title,
  };
  const problems: string[] = [];
  if (run.status !== "completed")
    return { ...reading, result: null, publish: null, problems, finished: null };
  const artifacts = await listRunArtifacts(ctx, LABEL, runId);
  const publish = await readArtifact(
    ctx,
    artifacts,
    PUBLISH_ARTIFACT,
    PUBLISH_RESULT_FILE,
    PublishResult,
    problems,
  );
  const result =
    (await readCarriedResult(ctx, artifacts)) ??
    (await readArtifact(ctx, artifacts, RESULT_ARTIFACT, RESULT_FILE, StageResult, problems));
  const evidence = { status: run.status, conclusion: run.conclusion, result, publish, problems };
  return { ...reading, result, publish, problems, finished: decideRunOutcome(evidence) };
}

/**
 * The `run.finished` event for a stage attempt, or null while the run goes on. A result written
 * for another stage or attempt is not believed: the run counts as crashed.
 */
export function toRunFinishedEvent(
  reading: RunReading,
  expected: { stageId: string; attempt: number; at: number },
): OrchestratorEvent | null {
  if (!reading.finished) return null;
  let { outcome, detail } = reading.finished;
  const { result } = reading;
  const ours = result !== null && result.stage_id === expected.stageId && result.attempt === expected.attempt;
  if (result && !ours) {
    outcome = "crashed";
    detail = `loom-result is for stage ${result.stage_id} attempt ${result.attempt}, not ${expected.stageId} attempt ${expected.attempt}`;
  }
  // What the checks ran on, as the run left the stage branch: publish's push (the checked tip, or
  // loom-publish's learnings commit on top of it), else the tip the session ended on.
  const headSha = reading.publish?.pushed_sha ?? result?.head_sha;
  return {
    type: "run.finished",
    at: expected.at,
    stageId: expected.stageId,
    attempt: expected.attempt,
    runId: reading.runId,
    outcome,
    detail,
    // A disputed run's too: a person's amendment re-checks exactly that commit.
    ...((outcome === "completed" || (ours && result.dispute !== undefined)) && headSha !== undefined
      ? { headSha }
      : {}),
    // The numbers of a result written for this stage and attempt only.
    ...(ours ? { report: toSessionReport(result) } : {}),
  };
}
