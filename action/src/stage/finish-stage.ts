import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { renderHandoffMarkdown } from "../../../src/artifacts/handoff.ts";
import {
  MAX_LEARNINGS_GIVEN,
  StageResult,
  type ContinuedFrom,
  type CheckResult,
  type CommitInfo,
  type NetworkRecord,
  type SessionIsolationRecord,
} from "../../../src/artifacts/stage-result.ts";
import { redactSecrets } from "../../../src/redact/redact-secrets.ts";
import type { StageDispute } from "../../../src/artifacts/dispute-request.ts";
import type { StageVerdict } from "../checks/decide-stage-outcome.ts";
import { readHead } from "../git/list-commits.ts";
import type { LearningRef } from "../../../src/knowledge/learning.ts";
import type { CollectedLearnings } from "../knowledge/collect-learnings.ts";
import type { RunStageInputs } from "../run-stage-inputs.ts";
import { describePermissionDenial } from "../session/observe-stream.ts";
import type { SessionOutcome } from "../session/session-outcome.ts";
import * as names from "../upload/artifact-port.ts";
import { renderJobSummary } from "../upload/render-job-summary.ts";
import { uploadBundle } from "../upload/upload-bundle.ts";
import { uploadSessionState } from "../upload/upload-session-state.ts";
import { uploadTranscript } from "../upload/upload-transcript.ts";
import { optional } from "./optional.ts";
import type { RunStageDeps, RunStageResult } from "./run-stage-deps.ts";

export type FinishStage = {
  started: number;
  startSha: string;
  verdict: StageVerdict;
  checks: CheckResult[];
  session: SessionOutcome | null;
  commits?: CommitInfo[];
  learnings?: CollectedLearnings | null;
  /** The learnings the session's prompt carried (none when the session never started). */
  learningsGiven?: LearningRef[];
  /** A continue session: whether it resumed the earlier session or got a handoff prompt. */
  continued?: ContinuedFrom;
  /** The network sandbox the session and checks ran under, when there was one. */
  network?: NetworkRecord;
  /** The acceptance criterion the session disputed (it failed), with its reason (redacted). */
  dispute?: StageDispute;
};

/** The sandbox the action ran the session in, as `loom-result` records it. */
function recordIsolation(
  deps: RunStageDeps,
  redact: (text: string) => string,
): SessionIsolationRecord | undefined {
  const isolation = deps.sandbox?.isolation;
  if (isolation === undefined) return undefined;
  return isolation.kind === "user"
    ? { mode: "user", user: isolation.user }
    : { mode: "none", reason: redact(isolation.reason).slice(0, 1000) };
}

/**
 * Writes `loom-result` (redacted), uploads it with the bundle and the transcript (the result first
 * when the run was cancelled: GitHub kills the job within seconds) and writes the job summary.
 */
export async function finishStage(
  inputs: RunStageInputs,
  deps: RunStageDeps,
  f: FinishStage,
): Promise<RunStageResult> {
  const redact = (text: string): string => redactSecrets(text, deps.knownSecrets);
  const s = f.session;
  const head = await readHead(deps.workspace);
  const handoff =
    s !== null && s.status !== "completed"
      ? redact(renderHandoffMarkdown(s.handoff)).slice(0, 100_000)
      : undefined;
  const result = StageResult.parse({
    version: 1,
    plan_id: inputs.plan_id,
    stage_id: inputs.stage_id,
    attempt: inputs.attempt,
    kind: inputs.kind,
    ...optional("key", inputs.key),
    ...optional("session_id", s === null || s.sessionId === "" ? undefined : s.sessionId),
    ...optional("model", s?.model ?? undefined),
    outcome: f.verdict.outcome,
    reason: redact(f.verdict.reason).slice(0, 1000),
    checks: f.checks,
    commits: (f.commits ?? []).map((c) => ({ sha: c.sha, subject: redact(c.subject) })),
    head_sha: head,
    turns: s?.turns ?? 0,
    tokens: s?.tokens ?? { input: 0, output: 0, cache_read: 0, cache_creation: 0 },
    cost_usd: s?.costUsd ?? 0,
    duration_ms: Math.max(0, Math.round(deps.now() - f.started)),
    context_percent: Math.min(100, Math.max(0, s?.contextPercent ?? 0)),
    ...optional("handoff", handoff),
    deviations: (s?.deviations ?? []).map((d) => redact(d).slice(0, 2000)),
    permission_denials: (s?.permissionDenials ?? []).map((d) =>
      redact(describePermissionDenial(d)).slice(0, 2000),
    ),
    ...optional("learnings", f.learnings ?? undefined),
    ...optional("isolation", recordIsolation(deps, redact)),
    ...optional(
      "network",
      f.network === undefined
        ? undefined
        : {
            ...f.network,
            ...optional("reason", f.network.reason && redact(f.network.reason).slice(0, 1000)),
            blocked: f.network.blocked.map((denial) => ({
              ...denial,
              ...optional("command", denial.command && redact(denial.command).slice(0, 300)),
            })),
          },
    ),
    ...optional(
      "dispute",
      f.dispute === undefined
        ? undefined
        : {
            ...f.dispute,
            criterion: redact(f.dispute.criterion).slice(0, 1024),
            reason: redact(f.dispute.reason).slice(0, 500),
          },
    ),
    ...optional(
      "continued",
      f.continued === undefined
        ? undefined
        : {
            ...f.continued,
            ...optional("reason", f.continued.reason && redact(f.continued.reason).slice(0, 500)),
          },
    ),
    ...(f.learningsGiven === undefined || f.learningsGiven.length === 0 || s === null
      ? {}
      : {
          learnings_given: f.learningsGiven
            .slice(0, MAX_LEARNINGS_GIVEN)
            .map((l) => ({ id: l.id, summary: redact(l.summary).slice(0, 200) })),
        }),
  });
  const resultDir = path.join(deps.tempDir, "result");
  const resultFile = path.join(resultDir, names.RESULT_FILE);
  const uploadResult = async (): Promise<void> => {
    await mkdir(resultDir, { recursive: true });
    await writeFile(resultFile, `${JSON.stringify(result, null, 2)}\n`);
    await deps.uploadArtifact(names.RESULT_ARTIFACT, [resultFile], resultDir);
  };
  const uploadWork = async (): Promise<void> => {
    await uploadBundle(inputs, deps, f.startSha, head);
    if (s === null) return;
    await uploadTranscript(deps, s.transcriptPath);
    // Merge sessions are never continued: only a stage's own sessions keep their state.
    if (inputs.kind === "merge") return;
    const origin = { sessionId: s.sessionId, stageId: inputs.stage_id, attempt: inputs.attempt };
    const missing = await uploadSessionState(deps, origin);
    if (missing !== null) deps.log("session state not uploaded", { why: missing });
  };
  if (result.outcome === "cancelled") {
    // GitHub kills a cancelled job within seconds: the result (the handoff) goes first; the
    // bundle only serves the publish job, which does not run for a cancelled run.
    await uploadResult();
    await uploadWork();
  } else {
    await uploadWork();
    await uploadResult();
  }
  await deps.writeSummary(renderJobSummary(result));
  deps.log("stage result", { outcome: result.outcome, reason: result.reason });
  return { result, resultFile };
}
