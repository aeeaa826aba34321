import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { renderHandoffMarkdown } from "../../src/artifacts/handoff.ts";
import type { Heartbeat } from "../../src/artifacts/heartbeat.ts";
import {
  BUNDLE_ARTIFACT,
  BUNDLE_FILE,
  BUNDLE_MANIFEST_FILE,
  BundleManifest,
} from "../../src/artifacts/publish-result.ts";
import { StageResult, type CheckResult, type CommitInfo } from "../../src/artifacts/stage-result.ts";
import type { RecordedLearning } from "../../src/knowledge/learning.ts";
import { selectLearnings } from "../../src/knowledge/select-learnings.ts";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import type { Plan, Stage } from "../../src/plan/plan.ts";
import { redactSecrets } from "../../src/redact/redact-secrets.ts";
import { buildSignal } from "../../src/signal/build-signal.ts";
import { resolveStageType } from "../../src/signal/resolve-stage-type.ts";
import type { SignalKnowledge } from "../../src/signal/signal-input.ts";
import type { CheckContext } from "./checks/check-context.ts";
import { decideStageOutcome, type StageVerdict } from "./checks/decide-stage-outcome.ts";
import { runBeforeStageChecks, runStageChecks } from "./checks/run-checks.ts";
import { loadSessionCaps, type LoadedSessionCaps } from "./config/load-session-caps.ts";
import type { RepoConfigRead } from "./config/read-repo-config.ts";
import { collectLearnings, type CollectedLearnings } from "./knowledge/collect-learnings.ts";
import { readRepoLearnings } from "./knowledge/read-repo-learnings.ts";
import { commitLeftovers } from "./git/commit-leftovers.ts";
import { createBundle } from "./git/create-bundle.ts";
import { listCommitsSince, readHead } from "./git/list-commits.ts";
import { startMerge } from "./git/start-merge.ts";
import type { RunStageInputs } from "./run-stage-inputs.ts";
import type { HookPrograms } from "./session/hook-settings.ts";
import type { RunSessionOptions } from "./session/run-session.ts";
import type { SessionOutcome } from "./session/session-outcome.ts";
import { describePermissionDenial } from "./session/observe-stream.ts";
import * as names from "./upload/artifact-port.ts";
import type { PreviousSession } from "./upload/load-previous-session.ts";
import { renderJobSummary } from "./upload/render-job-summary.ts";

export type RunStageDeps = {
  /** The checkout of the stage branch. */
  workspace: string;
  /** A scratch directory outside the checkout (signal, transcript, result, bundle). */
  tempDir: string;
  /** The session's environment: holds the model key, no GitHub or Actions tokens. */
  sessionEnv: Record<string, string | undefined>;
  /** The checks' environment: no secrets at all. */
  checkEnv: Record<string, string | undefined>;
  /** Values redacted from everything that leaves the job. */
  knownSecrets: readonly string[];
  hooks: HookPrograms | null;
  runSession: (options: RunSessionOptions) => Promise<SessionOutcome>;
  uploadArtifact: names.UploadArtifact;
  /** The previous run's handoff and heartbeat, for recovery sessions. */
  loadPrevious: (runId: number) => Promise<PreviousSession>;
  writeSummary: (markdown: string) => Promise<void>;
  /**
   * `.github/loom.yml` from the trusted ref (the dispatched commit, never the stage branch): its
   * `session:` caps are defaults and ceilings. Left out: no repository config.
   */
  readRepoConfig?: () => Promise<RepoConfigRead>;
  log: (message: string, data?: Record<string, unknown>) => void;
  now: () => number;
  /** Heartbeat uploads closer than this are skipped (default `MIN_HEARTBEAT_UPLOAD_GAP_MS`). */
  heartbeatGapMs?: number;
  /**
   * Aborted when the run is cancelled: the session is stopped (or never started), no checks run,
   * and `loom-result` (outcome `cancelled`, with the handoff) is uploaded before anything else.
   */
  signal?: AbortSignal;
};

export type RunStageResult = { result: StageResult; resultFile: string };

const KNOWLEDGE_DIR = "doc/loom/knowledge";
const KNOWLEDGE_MAX_CHARS = 24_000;

/** Runs one stage session end to end and writes, uploads and summarizes its `loom-result`. */
export async function runStage(inputs: RunStageInputs, deps: RunStageDeps): Promise<RunStageResult> {
  const started = deps.now();
  const startSha = await readHead(deps.workspace);
  const loaded = await loadStage(inputs, deps);
  if (!loaded.ok) {
    const verdict: StageVerdict = { outcome: "crashed", reason: loaded.reason };
    return finish(inputs, deps, { started, startSha, verdict, checks: [], session: null });
  }
  const { plan, stage } = loaded;
  const caps = await loadSessionCaps(deps.readRepoConfig, plan.metadata, stage, inputs);
  for (const note of caps.notes) deps.log("session cap", { note });
  if (caps.configProblem !== undefined) {
    // Fail closed: without the repository's config its ceilings cannot be applied, and a session
    // must not run with more budget than the repository allows.
    const problem = redactSecrets(caps.configProblem, deps.knownSecrets).slice(0, 400);
    deps.log("session not started", { problem });
    const verdict: StageVerdict = {
      outcome: "crashed",
      reason: `not started: ${problem}, so its session caps could not be applied; fix it on the default branch (loom retries after a backoff, or \`/loom retry ${stage.id}\`)`,
    };
    return finish(inputs, deps, { started, startSha, verdict, checks: [], session: null });
  }
  const ctx: CheckContext = {
    workspace: deps.workspace,
    env: deps.checkEnv,
    knownSecrets: deps.knownSecrets,
    defaultTimeoutMs: inputs.check_timeout_minutes * 60_000,
    now: deps.now,
  };
  const beforeChecks = inputs.kind === "stage" ? await runBeforeStageChecks(stage, ctx) : [];
  const conflictFiles = inputs.kind === "merge" ? await prepareMerge(inputs, deps) : undefined;
  const previous =
    inputs.kind === "recovery" && inputs.previous_run_id !== undefined
      ? await loadPreviousSafely(inputs.previous_run_id, deps)
      : undefined;
  // Read before the session: the session cannot change what its learnings are checked against.
  const repoLearnings = await readRepoLearnings(deps.workspace);
  const learningsFile = inputs.kind === "merge" ? undefined : await prepareLearningsFile(deps.tempDir);
  const prompt = buildSignal({
    plan,
    stage,
    kind: inputs.kind,
    attempt: inputs.attempt,
    branch: inputs.branch,
    ...(inputs.base === undefined ? {} : { base: inputs.base }),
    ...(previous?.handoff === undefined ? {} : { handoff: previous.handoff }),
    ...(previous?.lastHeartbeat === undefined ? {} : { lastHeartbeat: previous.lastHeartbeat }),
    ...(conflictFiles === undefined ? {} : { conflictFiles }),
    knowledge: await readKnowledge(deps.workspace, repoLearnings, inputs.plan_id, stage),
    ...optional("learningsFile", learningsFile),
  });
  const session = deps.signal?.aborted
    ? stoppedOutcome(
        "cancelled",
        stage.id,
        inputs.attempt,
        deps.now(),
        "",
        "the run was cancelled before the session started",
      )
    : await runSessionSafely(inputs, deps, stage, prompt, caps, learningsFile);
  const leftovers = await commitLeftovers(
    deps.workspace,
    `loom: work left uncommitted by stage ${stage.id}, attempt ${inputs.attempt}`,
  );
  const commits = await listCommitsSince(deps.workspace, startSha);
  // A run cancelled after its session ended runs no checks either: GitHub kills the job soon.
  const cancelled = deps.signal?.aborted === true;
  const stopped = cancelled || (session.status !== "completed" && session.status !== "crashed");
  const checks = stopped ? null : [...beforeChecks, ...(await runStageChecks(stage, ctx))];
  const decided = decideStageOutcome({
    kind: inputs.kind,
    stageType: resolveStageType(stage),
    session: { status: session.status, reason: session.reason },
    commits,
    checks,
    permissionDenials: session.permissionDenials.map(describePermissionDenial),
    ...(leftovers.committed || leftovers.reason === "clean"
      ? {}
      : { uncommittedReason: "the session left a merge unfinished: nothing was committed" }),
  });
  const learnings =
    learningsFile === undefined
      ? null
      : await collectLearnings({
          file: learningsFile,
          existing: repoLearnings,
          knownSecrets: deps.knownSecrets,
          origin: {
            plan_id: inputs.plan_id,
            stage_id: inputs.stage_id,
            attempt: inputs.attempt,
            recorded_at: new Date(deps.now()).toISOString(),
          },
        });
  if (learnings !== null)
    deps.log("learnings reviewed", {
      accepted: learnings.accepted.length,
      rejected: learnings.rejected.length,
    });
  const verdict: StageVerdict =
    cancelled && decided.outcome !== "cancelled"
      ? { outcome: "cancelled", reason: `the run was cancelled after the session ended (${session.reason})` }
      : decided;
  return finish(inputs, deps, {
    started,
    startSha,
    verdict,
    checks: checks ?? beforeChecks,
    session,
    commits,
    learnings,
  });
}

type LoadedStage = { ok: true; plan: Plan; stage: Stage } | { ok: false; reason: string };

async function loadStage(inputs: RunStageInputs, deps: RunStageDeps): Promise<LoadedStage> {
  const file = path.resolve(deps.workspace, inputs.plan_path);
  if (!file.startsWith(`${path.resolve(deps.workspace)}${path.sep}`))
    return { ok: false, reason: `plan_path ${inputs.plan_path} leaves the checkout` };
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => error);
  if (text instanceof Error)
    return { ok: false, reason: `cannot read the plan ${inputs.plan_path}: ${text.code ?? text.message}` };
  const parsed = parsePlan(inputs.plan_path, text);
  if (!parsed.ok) {
    const first = parsed.errors[0];
    return {
      ok: false,
      reason: `the plan ${inputs.plan_path} is invalid${first === undefined ? "" : `: line ${first.line}: ${first.message}`}`,
    };
  }
  const stage = parsed.plan.stages.find((s) => s.id === inputs.stage_id);
  if (stage === undefined)
    return { ok: false, reason: `the plan ${inputs.plan_path} has no stage ${inputs.stage_id}` };
  return { ok: true, plan: parsed.plan, stage };
}

async function prepareMerge(inputs: RunStageInputs, deps: RunStageDeps): Promise<string[]> {
  if (inputs.base === undefined) {
    deps.log("merge session without a base input: the session must find the merge point itself");
    return [];
  }
  const merge = await startMerge(deps.workspace, inputs.base);
  deps.log("merge prepared", { state: merge.state });
  if (merge.state === "failed")
    deps.log("could not start the merge", { detail: redactSecrets(merge.detail, deps.knownSecrets) });
  return merge.state === "conflicts" ? merge.files : [];
}

async function loadPreviousSafely(runId: number, deps: RunStageDeps): Promise<PreviousSession | undefined> {
  try {
    const previous = await deps.loadPrevious(runId);
    for (const note of previous.notes) deps.log("previous run", { note });
    return previous;
  } catch (error) {
    deps.log("could not read the previous run's artifacts", {
      error: redactSecrets(String(error), deps.knownSecrets),
    });
    return undefined;
  }
}

/** A fresh learnings file outside the checkout (so it is never committed), in its own folder. */
async function prepareLearningsFile(tempDir: string): Promise<string> {
  const dir = path.join(tempDir, "learnings");
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  return path.join(dir, "learnings.jsonl");
}

/** The repository's knowledge files (not the learnings log), bounded, and the most relevant learnings. */
async function readKnowledge(
  workspace: string,
  learnings: readonly RecordedLearning[],
  planId: string,
  stage: Stage,
): Promise<SignalKnowledge> {
  const selected = selectLearnings(learnings, {
    planId,
    stageId: stage.id,
    ...optional("name", stage.name),
    ...optional("description", stage.description),
    files: stage.files,
  }).map((l) => ({
    category: l.category,
    summary: l.summary,
    detail: l.detail,
    tags: l.tags,
    scope: l.scope,
  }));
  const dir = path.join(workspace, KNOWLEDGE_DIR);
  const entries = await readdir(dir).catch(() => [] as string[]);
  const parts: string[] = [];
  let size = 0;
  for (const name of entries.filter((n) => n.endsWith(".md") && n !== "learnings.md").sort()) {
    const text = (await readFile(path.join(dir, name), "utf8").catch(() => "")).trim();
    if (text === "" || size + text.length > KNOWLEDGE_MAX_CHARS) continue;
    size += text.length;
    parts.push(`### ${KNOWLEDGE_DIR}/${name}\n\n${text}`);
  }
  return {
    ...(parts.length === 0 ? {} : { summary: parts.join("\n\n") }),
    ...(selected.length === 0 ? {} : { learnings: selected }),
  };
}

async function runSessionSafely(
  inputs: RunStageInputs,
  deps: RunStageDeps,
  stage: Stage,
  prompt: string,
  caps: LoadedSessionCaps,
  learningsFile: string | undefined,
): Promise<SessionOutcome> {
  const stateDir = path.join(deps.tempDir, "session");
  await mkdir(stateDir, { recursive: true });
  const assignmentFile = path.join(stateDir, "assignment.md");
  await writeFile(assignmentFile, prompt);
  const transcriptPath = path.join(deps.tempDir, "transcript", names.TRANSCRIPT_FILE);
  let heartbeats = 0;
  let lastUploadAt = -Infinity;
  const gap = deps.heartbeatGapMs ?? names.MIN_HEARTBEAT_UPLOAD_GAP_MS;
  const publishHeartbeat = async (heartbeat: Heartbeat): Promise<void> => {
    if (heartbeats >= names.MAX_HEARTBEAT_ARTIFACTS) return;
    if (deps.now() - lastUploadAt < gap) return;
    lastUploadAt = deps.now();
    heartbeats += 1;
    const dir = path.join(deps.tempDir, "heartbeats", String(heartbeats));
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, names.HEARTBEAT_FILE);
    await writeFile(file, `${JSON.stringify(heartbeat)}\n`);
    await deps.uploadArtifact(`${names.HEARTBEAT_ARTIFACT_PREFIX}${heartbeats}`, [file], dir);
  };
  const options: RunSessionOptions = {
    prompt,
    cwd: deps.workspace,
    claudePath: inputs.claude_path,
    env: deps.sessionEnv,
    stageId: stage.id,
    attempt: inputs.attempt,
    stateDir,
    transcriptPath,
    hooks: deps.hooks,
    allowedTools: inputs.allowed_tools,
    ...optional("signal", deps.signal),
    assignmentFile,
    ...optional("learningsFile", learningsFile),
    contextBudgetPercent: stage.context_budget ?? inputs.context_budget_percent ?? 65,
    silenceTimeoutMs: inputs.silence_timeout_minutes * 60_000,
    publishHeartbeat,
    // The uploader above throttles and caps real uploads; runSession's own cap counts calls.
    toolHeartbeatGapMs: gap,
    maxHeartbeats: Number.MAX_SAFE_INTEGER,
    log: deps.log,
    now: () => new Date(deps.now()),
    ...optional("model", stage.model ?? inputs.model),
    ...optional("effort", stage.reasoning_effort),
    ...optional("maxBudgetUsd", caps.maxBudgetUsd),
    ...optional("maxTurns", caps.maxTurns),
  };
  try {
    return await deps.runSession(options);
  } catch (error) {
    deps.log("the session runner failed", { error: redactSecrets(String(error), deps.knownSecrets) });
    return stoppedOutcome(
      "crashed",
      stage.id,
      inputs.attempt,
      deps.now(),
      transcriptPath,
      `the session runner failed: ${redactSecrets(String(error), deps.knownSecrets).slice(0, 300)}`,
    );
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/** A session that never ran (cancelled first) or whose runner threw. */
function stoppedOutcome(
  status: "crashed" | "cancelled",
  stageId: string,
  attempt: number,
  at: number,
  transcriptPath: string,
  reason: string,
): SessionOutcome {
  return {
    status,
    reason,
    sessionId: "",
    turns: 0,
    tokens: { input: 0, output: 0, cache_read: 0, cache_creation: 0 },
    costUsd: 0,
    contextPercent: 0,
    lastHeartbeat: null,
    permissionDenials: [],
    resultText: null,
    transcriptPath,
    deviations: [],
    durationMs: 0,
    exit: { code: null, signal: null },
    stderrTail: "",
    handoff: {
      stage_id: stageId,
      attempt,
      session_id: "",
      reason: status,
      created_at: new Date(at).toISOString(),
      context_percent: 0,
      summary: reason,
      remaining: [],
      files_touched: [],
      recent_activity: [],
      hook_notes: null,
      last_heartbeat: null,
    },
  };
}

type Finish = {
  started: number;
  startSha: string;
  verdict: StageVerdict;
  checks: CheckResult[];
  session: SessionOutcome | null;
  commits?: CommitInfo[];
  learnings?: CollectedLearnings | null;
};

async function finish(inputs: RunStageInputs, deps: RunStageDeps, f: Finish): Promise<RunStageResult> {
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
    if (s !== null) await uploadTranscript(deps, s.transcriptPath);
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

async function uploadBundle(
  inputs: RunStageInputs,
  deps: RunStageDeps,
  startSha: string,
  head: string,
): Promise<void> {
  const dir = path.join(deps.tempDir, "bundle");
  await mkdir(dir, { recursive: true });
  const bundle = await createBundle(deps.workspace, {
    branch: inputs.branch,
    startSha,
    file: path.join(dir, BUNDLE_FILE),
  });
  const manifest = BundleManifest.parse({
    version: 1,
    plan_id: inputs.plan_id,
    stage_id: inputs.stage_id,
    attempt: inputs.attempt,
    branch: inputs.branch,
    base_sha: startSha,
    head_sha: head,
    bundle: bundle.created ? BUNDLE_FILE : null,
  });
  const manifestFile = path.join(dir, BUNDLE_MANIFEST_FILE);
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  await deps.uploadArtifact(
    BUNDLE_ARTIFACT,
    bundle.created ? [manifestFile, bundle.file] : [manifestFile],
    dir,
  );
}

/** The transcript leaves the job only redacted. */
async function uploadTranscript(deps: RunStageDeps, transcriptPath: string): Promise<void> {
  const text = await readFile(transcriptPath, "utf8").catch(() => null);
  if (text === null) return;
  const dir = path.join(deps.tempDir, "transcript-redacted");
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, names.TRANSCRIPT_FILE);
  await writeFile(file, redactSecrets(text, deps.knownSecrets));
  await deps.uploadArtifact(names.TRANSCRIPT_ARTIFACT, [file], dir);
}
