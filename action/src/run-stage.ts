import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { redactSecrets } from "../../src/redact/redact-secrets.ts";
import { summarizeLearningUses } from "../../src/knowledge/learning-stats.ts";
import type { SignalInput } from "../../src/signal/signal-input.ts";
import { resolveStageType } from "../../src/signal/resolve-stage-type.ts";
import type { CheckContext } from "./checks/check-context.ts";
import { decideStageOutcome, type StageVerdict } from "./checks/decide-stage-outcome.ts";
import { readRanBefore } from "./git/read-ran-before.ts";
import { checkCodeReview } from "./checks/check-code-review.ts";
import { captureBaseline, compareChangeImpact } from "./checks/run-change-impact.ts";
import { runBeforeStageChecks, runStageChecks } from "./checks/run-checks.ts";
import { loadSessionCaps } from "./config/load-session-caps.ts";
import { commitLeftovers } from "./git/commit-leftovers.ts";
import { findForkPoint } from "./git/find-fork-point.ts";
import { refuseUnisolated } from "./isolation/refuse-unisolated.ts";
import { applyNetworkPolicy, recordNetwork } from "./sandbox/apply-network-policy.ts";
import type { RepoConfigRead } from "./config/read-repo-config.ts";
import type { LoomConfig } from "../../src/config/loom-config.ts";
import { listCommitsSince, readHead } from "./git/list-commits.ts";
import { startMerge } from "./git/start-merge.ts";
import { collectLearnings } from "./knowledge/collect-learnings.ts";
import { readLearningUses } from "./knowledge/read-learning-uses.ts";
import { readRepoLearnings } from "./knowledge/read-repo-learnings.ts";
import type { RunStageInputs } from "./run-stage-inputs.ts";
import { describePermissionDenial } from "./session/observe-stream.ts";
import { finishStage } from "./stage/finish-stage.ts";
import { readDispute } from "./adjudication/read-dispute.ts";
import { loadAmendments } from "./adjudication/load-amendments.ts";
import { runCheckOnly } from "./adjudication/run-check-only.ts";
import { loadContinue } from "./stage/load-continue.ts";
import { startSession } from "./stage/start-session.ts";
import { loadStage } from "./stage/load-stage.ts";
import { optional } from "./stage/optional.ts";
import { readKnowledge } from "./stage/read-knowledge.ts";
import type { RunStageDeps, RunStageResult } from "./stage/run-stage-deps.ts";
import type { PreviousSession } from "./upload/load-previous-session.ts";
import { redactWaysOut } from "./upload/redact-ways-out.ts";

export type { RunStageDeps, RunStageResult } from "./stage/run-stage-deps.ts";

/**
 * Runs one stage session end to end and writes, uploads and summarizes its `loom-result`. Every
 * way out (artifacts, the job summary, log lines) is redacted of the job's secrets, plain and
 * encoded; commits holding one are not uploaded.
 */
export async function runStage(inputs: RunStageInputs, unguarded: RunStageDeps): Promise<RunStageResult> {
  const deps = redactWaysOut(unguarded);
  const started = deps.now();
  const startSha = await readHead(deps.workspace);
  // Before the session: a completed stage run again starts on a head holding its merge.
  const ranBefore =
    inputs.kind === "stage" && inputs.attempt > 1 ? await readRanBefore(deps.workspace, inputs.branch) : null;
  const mergedBefore = ranBefore !== null;
  /** The session does not start: `problem` in the log, the stage crashed with `reason`. */
  const notStarted = (problem: string, reason = `not started: ${problem}`) => {
    deps.log("session not started", { problem });
    const verdict: StageVerdict = { outcome: "crashed", reason };
    return finishStage(inputs, deps, { started, startSha, verdict, checks: [], session: null });
  };
  const loaded = await loadStage(inputs, deps);
  if (!loaded.ok) {
    const verdict: StageVerdict = { outcome: "crashed", reason: loaded.reason };
    return finishStage(inputs, deps, { started, startSha, verdict, checks: [], session: null });
  }
  const amended = await loadAmendments(inputs, deps, loaded.stage);
  if (!amended.ok) return notStarted(amended.reason);
  const { plan } = loaded;
  // A person's `/loom amend` holds for every later session of the stage: its prompt and its checks.
  const stage = amended.stage;
  const continued = inputs.kind === "continue" ? await loadContinue(inputs, deps) : undefined;
  if (continued?.ok === false) return notStarted(continued.reason);
  // Read once: the caps and the isolation requirement come from the same file.
  const configRead =
    deps.readRepoConfig === undefined ? undefined : Promise.resolve().then(deps.readRepoConfig);
  const readConfig = configRead === undefined ? undefined : () => configRead;
  const caps = await loadSessionCaps(readConfig, plan.metadata, stage, inputs);
  for (const note of caps.notes) deps.log("session cap", { note });
  deps.log("session caps", {
    max_budget_usd: caps.maxBudgetUsd ?? "none",
    max_budget_usd_from: caps.from.maxBudgetUsd,
    max_turns: caps.maxTurns ?? "none",
    max_turns_from: caps.from.maxTurns,
  });
  if (caps.configProblem !== undefined) {
    // Fail closed: without the repository's config its ceilings cannot be applied, and a session
    // must not run with more budget than the repository allows.
    const problem = redactSecrets(caps.configProblem, deps.knownSecrets).slice(0, 400);
    return notStarted(
      problem,
      `not started: ${problem}, so its session caps could not be applied; fix it on the default branch (loom retries after a backoff, or \`/loom retry ${stage.id}\`)`,
    );
  }
  const unisolated = await refuseUnisolated(deps.sandbox, readConfig);
  if (unisolated !== null) return notStarted(unisolated, unisolated);
  const network = await applyNetworkPolicy({
    plan: plan.metadata,
    stage,
    repoConfig: await readConfigOrNull(readConfig),
    sessionEnv: deps.sessionEnv,
    limitNetwork: deps.limitNetwork,
  });
  if (network.kind === "refused") return notStarted(network.reason, network.reason);
  if (network.kind !== "open")
    deps.log("network sandbox", {
      mode: network.kind,
      allow: network.policy.allow.join(", "),
      from: network.policy.from,
    });
  for (const note of network.kind === "open" ? [] : network.policy.notes)
    deps.log("network sandbox", { note });
  // The session and the checks both go through the proxy: the rule holds every process of the session user.
  const held = network.kind === "limited" ? withProxyEnv(deps, network.limit.env) : deps;
  const ctx: CheckContext = {
    workspace: deps.workspace,
    env: held.checkEnv,
    ...optional("sandbox", deps.sandbox),
    knownSecrets: deps.knownSecrets,
    defaultTimeoutMs: inputs.check_timeout_minutes * 60_000,
    now: deps.now,
  };
  if (inputs.kind === "check") return runCheckOnly(inputs, deps, stage, ctx, { started, startSha });
  const beforeChecks = inputs.kind === "stage" ? await runBeforeStageChecks(stage, ctx) : [];
  // Merge sessions bring the merge point's own changes: they are not the stage's to answer for.
  const changeImpact = inputs.kind === "merge" ? undefined : plan.metadata.change_impact;
  const forkPoint =
    // Attempt 1 starts on the merge point itself; later attempts on the branch with earlier work.
    inputs.attempt === 1 || changeImpact === undefined
      ? undefined
      : inputs.base === undefined
        ? null
        : await findForkPoint(deps.workspace, inputs.base);
  const where = { head: startSha, ...(forkPoint === undefined ? {} : { forkPoint }) };
  const baseline = await captureBaseline(changeImpact, stage, ctx, where, (paths) =>
    deps.log("the baseline command's changes to the checkout were undone", { paths: paths.slice(0, 20) }),
  );
  const conflictFiles = inputs.kind === "merge" ? await prepareMerge(inputs, deps) : undefined;
  const previous =
    inputs.kind === "recovery" && inputs.previous_run_id !== undefined
      ? await loadPreviousSafely(inputs.previous_run_id, deps)
      : undefined;
  // Read before the session: the session cannot change what its learnings are checked against.
  const repoLearnings = await readRepoLearnings(deps.workspace);
  const learningsFile = inputs.kind === "merge" ? undefined : await prepareLearningsFile(deps.tempDir);
  // Beside the learnings file (a folder the session user may write, emptied above).
  const disputeFile =
    learningsFile === undefined ? undefined : path.join(path.dirname(learningsFile), "dispute.json");
  const stats = summarizeLearningUses(await readLearningUses(deps.workspace, "HEAD"));
  const { knowledge, given } = await readKnowledge(
    deps.workspace,
    repoLearnings,
    inputs.plan_id,
    stage,
    stats,
  );
  const handoff = continued?.ok === true ? continued.handoff : previous?.handoff;
  const signalInput: SignalInput = {
    plan,
    stage,
    kind: inputs.kind,
    attempt: inputs.attempt,
    branch: inputs.branch,
    ...(inputs.base === undefined ? {} : { base: inputs.base }),
    ...optional("handoff", handoff),
    ...(previous?.lastHeartbeat === undefined ? {} : { lastHeartbeat: previous.lastHeartbeat }),
    ...(conflictFiles === undefined ? {} : { conflictFiles }),
    ...(ranBefore === null ? {} : { ranBefore }),
    ...(amended.amended.length === 0 ? {} : { amendedCriteria: amended.amended }),
    ...(continued?.ok === true ? { instructions: continued.instructions } : {}),
    knowledge,
    ...optional("learningsFile", learningsFile),
    ...(network.kind === "advisory" ? { networkUnenforced: true as const } : {}),
    ...optional("disputeFile", disputeFile),
  };
  const run = await startSession(
    inputs,
    held,
    stage,
    signalInput,
    caps,
    learningsFile,
    continued?.ok === true ? continued : undefined,
  );
  const { session } = run;
  const leftovers = await commitLeftovers(
    deps.workspace,
    `loom: work left uncommitted by stage ${stage.id}, attempt ${inputs.attempt}`,
  );
  const commits = await listCommitsSince(deps.workspace, startSha);
  // A run cancelled after its session ended runs no checks either: GitHub kills the job soon.
  const cancelled = deps.signal?.aborted === true;
  const stopped = cancelled || (session.status !== "completed" && session.status !== "crashed");
  const review =
    stopped || inputs.kind === "merge"
      ? []
      : checkCodeReview(stage, session.reviewText ?? session.resultText, deps.knownSecrets);
  const impact =
    stopped || baseline === null || changeImpact === undefined
      ? []
      : [await compareChangeImpact(changeImpact, baseline, stage, ctx)];
  const checks = stopped
    ? null
    : [...beforeChecks, ...(await runStageChecks(stage, ctx)), ...impact, ...review];
  const decided = decideStageOutcome({
    kind: inputs.kind,
    stageType: resolveStageType(stage),
    session: { status: session.status, reason: session.reason },
    commits,
    checks,
    permissionDenials: session.permissionDenials.map(describePermissionDenial),
    ...(mergedBefore ? { mergedBefore } : {}),
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
  const disputed =
    disputeFile === undefined || checks === null || decided.outcome !== "completed-with-failures"
      ? null
      : await readDispute(disputeFile, stage.acceptance, checks, deps.knownSecrets);
  if (disputed?.kind === "ignored") deps.log("dispute not taken", { why: disputed.why });
  if (disputed?.kind === "disputed")
    deps.log("criterion disputed", {
      criterion: disputed.dispute.criterion_index + 1,
      reason: disputed.dispute.reason,
    });
  const verdict: StageVerdict =
    cancelled && decided.outcome !== "cancelled"
      ? { outcome: "cancelled", reason: `the run was cancelled after the session ended (${session.reason})` }
      : decided;
  return finishStage(inputs, deps, {
    started,
    startSha,
    verdict,
    checks: checks ?? beforeChecks,
    session,
    commits,
    learnings,
    learningsGiven: given,
    ...optional("continued", run.continued),
    ...optional("network", recordNetwork(network)),
    ...(disputed?.kind === "disputed" && !cancelled ? { dispute: disputed.dispute } : {}),
  });
}

/** The repository config when it could be read (a failed read already stopped the stage). */
async function readConfigOrNull(
  read: (() => Promise<RepoConfigRead>) | undefined,
): Promise<LoomConfig | null> {
  if (read === undefined) return null;
  const config = await read();
  return config.ok ? config.config : null;
}

/** `deps` with the egress proxy's variables in the session's and the checks' environments. */
function withProxyEnv(deps: RunStageDeps, env: Record<string, string>): RunStageDeps {
  return { ...deps, sessionEnv: { ...deps.sessionEnv, ...env }, checkEnv: { ...deps.checkEnv, ...env } };
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
