import type { ProbotOctokit } from "probot";
import { normalizeLabels } from "../../src/commands/parse-label.ts";
import { resolveLabels } from "../../src/commands/resolve-labels.ts";
import { toSettings } from "../../src/config/loom-config.ts";
import type { LoomConfig } from "../../src/config/loom-config.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { derivePlanId } from "../../src/plan/derive-plan-id.ts";
import { discoverPlanPaths } from "../../src/plan/discover-plan-paths.ts";
import { checkStageLimit, describeRefusedPlans, limitPlanFiles } from "../../src/plan/check-plan-limits.ts";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import type { Diagnostic } from "../../src/plan/plan.ts";
import { warnNetworkNarrowed } from "../../src/sandbox/warn-network-narrowed.ts";
import { hasLiveHeartbeats } from "../github/read-latest-heartbeat.ts";
import type { PlanKey } from "../store/store.ts";
import { assessPlanTrust } from "../trust/assess-plan-trust.ts";
import { comesFromFork } from "../trust/comes-from-fork.ts";
import { applyEvents } from "./apply-events.ts";
import { buildPlanSpec } from "./build-plan-spec.ts";
import { closeRemovedPlans } from "./close-plans.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { findIdClash, identifyPlanFiles, sharedPull } from "./identify-plan-files.ts";
import { moveToOwnHead } from "./move-to-own-head.ts";
import { isLateOwnPush, isOwnHead, isUntouchedOwnHead } from "./own-heads.ts";
import { isLoomProducedHead } from "./plans-of-pull.ts";
import { readCallerVerdict } from "./read-caller-verdict.ts";
import { readPushEvents } from "./read-push-events.ts";
import { readRepoConfig, CONFIG_PATH } from "./read-repo-config.ts";
import { readRepoFile } from "./read-repo-file.ts";
import { reportPlanErrors } from "./report-plan-errors.ts";
import { createStoredPlanReader } from "./stored-plan.ts";
import type { RepoSettings } from "./stored-plan.ts";
import { readRepo, readTime } from "./webhook-fields.ts";
import type { PullRequestDelivery, RepoOf } from "./webhook-fields.ts";

function keyOf(repo: RepoOf, pr: number, planPath: string): PlanKey {
  return { installationId: repo.installationId, owner: repo.owner, repo: repo.repo, pr, planPath };
}

function toRepoSettings(config: LoomConfig, defaultBranch: string): RepoSettings {
  return {
    workflowFile: config.workflow,
    labelPrefix: config.label_prefix,
    minimumRole: config.minimum_role,
    branchCleanup: config.delete_branches,
    defaultBranch,
  };
}

/** The pull request's files at its head (removed ones left out), each with its blob SHA there. */
async function listPullFiles(
  octokit: ProbotOctokit,
  repo: RepoOf,
  pr: number,
): Promise<Map<string, string | null>> {
  const files = await octokit.paginate(octokit.rest.pulls.listFiles, {
    owner: repo.owner,
    repo: repo.repo,
    pull_number: pr,
    per_page: 100,
  });
  return new Map(
    files.filter((file) => file.status !== "removed").map((file) => [file.filename, file.sha] as const),
  );
}

/**
 * A pull request opened, reopened or pushed to: each plan file in it is read at the head and
 * checked; a new plan opens (trusted or waiting for approval), a running one learns of the push
 * (`readPushEvents`); a plan file taken out closes its plan. A head loom made itself costs at most
 * the moves to it.
 */
export async function loadPlans(deps: EngineDeps, delivery: PullRequestDelivery): Promise<void> {
  const repo = readRepo(delivery);
  const pull = delivery.pull_request;
  const octokit = await deps.getOctokit(repo.installationId);
  const known = await deps.store.listPlansForPull(repo.owner, repo.repo, pull.number);
  const stored = createStoredPlanReader();
  if (
    delivery.action === "synchronize" &&
    (isLateOwnPush(known, stored, pull.head.sha, delivery.before ?? null) ||
      isUntouchedOwnHead(known, stored, pull.head.sha))
  )
    return;
  // A file loom renamed (`IN_PROGRESS-PLAN-x.md`, `DONE-PLAN-x.md`) is the plan it knows by its first name.
  const listed = await listPullFiles(octokit, repo, pull.number);
  const files = identifyPlanFiles(discoverPlanPaths([...listed.keys()]), known);
  const paths = files.map((entry) => entry.path);
  if (delivery.action === "synchronize" && isOwnHead(known, stored, pull.head.sha, files, listed)) {
    await moveToOwnHead(deps, known, stored, delivery);
    return;
  }
  await closeRemovedPlans(deps, known, paths);
  if (paths.length === 0) return;

  const config = await readRepoConfig(octokit, repo, repo.defaultBranch);
  if (!config.ok) {
    const errors: Diagnostic[] = config.problems.map((problem) => ({
      message: `${CONFIG_PATH} (default branch): ${problem.message}`,
      line: 1,
      column: 1,
    }));
    for (const { file } of files) await reportPlanErrors(deps, octokit, repo, pull, file, errors, []);
    return;
  }
  const settings = toRepoSettings(config.config, repo.defaultBranch);
  const maxPlans = config.config.max_plans_per_pull;
  const running = new Set(known.filter((record) => record.active).map((record) => record.key.planPath));
  const { kept, refused } = limitPlanFiles(files, running, maxPlans);
  const [firstRefused] = refused;
  if (firstRefused !== undefined) {
    const message = describeRefusedPlans(refused, maxPlans);
    await reportPlanErrors(
      deps,
      octokit,
      repo,
      pull,
      firstRefused.file,
      [{ message, line: 1, column: 1 }],
      [],
    );
  }
  const fork = comesFromFork(pull.head.repo, delivery.repository);
  const trust = await assessPlanTrust(octokit, repo, { author: pull.user.login, fork }, settings.minimumRole);
  // GitHub's time of this head: the push for `synchronize`, the opening for `opened`.
  const headAt = readTime(pull.updated_at);
  // A plan first seen at a head loom produced waits for a person, whoever opened the pull request.
  const sentByLoom = delivery.sender.login === (await deps.getBotLogin());
  const loomHead = isLoomProducedHead(known, pull.head.sha, sentByLoom, stored);
  // Read once for the plans this delivery starts (none: not read); how loom serves the caller's pin.
  let caller: ReturnType<typeof readCallerVerdict> | undefined;
  for (const { path, file: filePath } of kept) {
    const clash = findIdClash(path, paths, known);
    if (clash !== null) {
      const message = `another plan in this pull request, ${clash}, has the same plan id ${derivePlanId(path)}: loom names branches, keys and check runs after it, so rename one of the two files`;
      await reportPlanErrors(deps, octokit, repo, pull, filePath, [{ message, line: 1, column: 1 }], []);
      continue;
    }
    const file = await readRepoFile(octokit, repo, filePath, pull.head.sha);
    if (!file.found) continue;
    const result =
      file.text === null
        ? { ok: false as const, errors: [{ message: file.reason, line: 1, column: 1 }], warnings: [] }
        : parsePlan(path, file.text);
    if (!result.ok) {
      await reportPlanErrors(deps, octokit, repo, pull, filePath, result.errors, result.warnings);
      continue;
    }
    const tooBig = checkStageLimit(result.plan, file.text ?? "", config.config.max_stages_per_plan);
    if (tooBig !== null) {
      await reportPlanErrors(deps, octokit, repo, pull, filePath, [tooBig], result.warnings);
      continue;
    }
    // What .github/loom.yml's network allowlist takes from the plan's sandbox, at the plan's lines.
    const warnings = [
      ...result.warnings,
      ...warnNetworkNarrowed(file.text ?? "", result.plan, config.config),
    ];
    const spec = buildPlanSpec({ ...result.plan, path }, file.blobSha, warnings, config.config);
    const record = known.find((plan) => plan.key.planPath === path) ?? null;
    const state = record === null ? null : stored(record).state;
    const at = deps.now();
    const events: OrchestratorEvent[] = [];
    if (state === null || state.closed) {
      // A plan first seen at loom's head waits for a person. Reopening a pull request whose head
      // is loom's (its rename or last merge, the usual case) is not a first sighting when the file
      // is the one the plan had and that plan did not wait for a person either.
      const newAtLoomHead =
        loomHead && (state === null || state.plan.blobSha !== spec.blobSha || !state.trusted);
      events.push({
        type: "plan.opened",
        at,
        plan: spec,
        settings: {
          ...toSettings(config.config),
          ...(hasLiveHeartbeats(deps.serverUrl) ? {} : { liveHeartbeats: false }),
          caller: await (caller ??= readCallerVerdict(deps, octokit, repo, settings.workflowFile)),
        },
        pr: {
          number: pull.number,
          headRef: pull.head.ref,
          headSha: pull.head.sha,
          baseRef: pull.base.ref,
          ...(headAt === undefined ? {} : { headAt }),
        },
        trusted: trust.trusted && !newAtLoomHead,
        ...(fork === null ? {} : { fork }),
        ...(sharedPull(path, paths, known) ? { sharedPull: true } : {}),
        labels: resolveLabels({
          current: normalizeLabels(
            pull.labels.map((label) => label.name),
            settings.labelPrefix,
            spec.id,
          ),
          obeyed: state?.labels ?? [],
          ignored: state?.ignoredLabels ?? [],
          changed: null,
          authorized: true,
        }).labels,
      });
    } else {
      const seen = { spec, delivery, at, loomHead, sentByLoom, headAt, fork };
      events.push(...(await readPushEvents(deps, octokit, repo, state, seen)));
    }
    if (!trust.trusted) deps.log.info({ path, reason: trust.reason }, "plan waits for /loom approve");
    await applyEvents(deps, { key: keyOf(repo, pull.number, path), events, repo: settings });
  }
}
