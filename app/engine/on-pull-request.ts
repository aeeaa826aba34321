import type { ProbotOctokit } from "probot";
import { normalizeLabels, parseLabel } from "../../src/commands/parse-label.ts";
import { resolveLabels } from "../../src/commands/resolve-labels.ts";
import { toSettings } from "../../src/config/loom-config.ts";
import type { LoomConfig } from "../../src/config/loom-config.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { derivePlanId } from "../../src/plan/derive-plan-id.ts";
import { discoverPlanPaths } from "../../src/plan/discover-plan-paths.ts";
import { stripLifecyclePrefix } from "../../src/plan/lifecycle-path.ts";
import { checkStageLimit, describeRefusedPlans, limitPlanFiles } from "../../src/plan/check-plan-limits.ts";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import type { Diagnostic } from "../../src/plan/plan.ts";
import type { PlanKey, PlanRecord } from "../store/store.ts";
import { assessPlanTrust } from "../trust/assess-plan-trust.ts";
import { comesFromFork } from "../trust/comes-from-fork.ts";
import { authorizeSender } from "../trust/authorize-sender.ts";
import { applyEvents } from "./apply-events.ts";
import { buildPlanSpec } from "./build-plan-spec.ts";
import { findLostMerges, headContains } from "./find-lost-merges.ts";
import { readChangedPaths } from "./read-changed-paths.ts";
import { isStalePush } from "../../src/orchestrator/move-head.ts";
import { isLoomProducedHead } from "./plans-of-pull.ts";
import { isLateOwnPush, isOwnHead, isUntouchedOwnHead } from "./own-heads.ts";
import type { EngineDeps } from "./engine-deps.ts";
import { readCallerVerdict } from "./read-caller-verdict.ts";
import { readRepoConfig, CONFIG_PATH } from "./read-repo-config.ts";
import { readRepoFile } from "./read-repo-file.ts";
import { reportPlanErrors } from "./report-plan-errors.ts";
import { createStoredPlanReader } from "./stored-plan.ts";
import type { RepoSettings, StoredPlanReader } from "./stored-plan.ts";
import { PullRequestDelivery, readRepo, readTime } from "./webhook-fields.ts";
import { hasLiveHeartbeats } from "../github/read-latest-heartbeat.ts";
import type { RepoOf } from "./webhook-fields.ts";
import { warnNetworkNarrowed } from "../../src/sandbox/warn-network-narrowed.ts";

/**
 * pull_request deliveries: opened/synchronize/reopened (re)load the plans of the pull request;
 * closed closes them; labeled/unlabeled pass the full current label set on, when the sender may.
 */
export async function onPullRequest(deps: EngineDeps, payload: unknown): Promise<void> {
  const parsed = PullRequestDelivery.safeParse(payload);
  if (!parsed.success) {
    deps.log.warn(
      { issues: parsed.error.issues.length },
      "pull_request payload without the fields loom needs",
    );
    return;
  }
  const delivery = parsed.data;
  switch (delivery.action) {
    case "opened":
    case "reopened":
    case "synchronize":
      return loadPlans(deps, delivery);
    case "closed":
      return closePlans(deps, delivery);
    case "labeled":
    case "unlabeled":
      return changeLabels(deps, delivery);
    default:
      return;
  }
}

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
      // A change that came in with a commit loom made (a stage's merge: publish refuses sessions'
      // plan edits, so only a bypass gets one in) is nobody's: the plan waits for a person.
      if (state.plan.blobSha !== spec.blobSha)
        events.push({ type: "plan.changed", at, plan: spec, ...(loomHead ? { untrusted: true } : {}) });
      // Whether the push is loom's own is the reducer's call (the merge SHAs it recorded), never
      // the sender's: anyone's push can come with loom's bot as sender.
      // The push behind a head loom read back without it (approval dropped): its `before` may
      // show it was loom's own merge on the approved head. Without one (a late `opened`) there is
      // nothing to confirm, and no event: each event commits the plan again.
      const before = delivery.action === "synchronize" ? (delivery.before ?? null) : null;
      const confirms = before !== null && state.approvalLost?.to === pull.head.sha;
      // A push whose webhook came after the head moved past it (loom's merges and renames move the
      // head from their answers; GitHub promises no order): its head is in the current one. Moving
      // back to it would undo merges. One compare, only for a push not made on the head loom knows.
      const stale =
        isStalePush(state, pull.head.sha, before) ||
        (before !== null &&
          before !== state.pr.headSha &&
          pull.head.sha !== state.pr.headSha &&
          (await headContains(deps, octokit, repo, state.pr.headSha, pull.head.sha)));
      if (stale) deps.log.info({ head: pull.head.sha }, "a late push webhook: the head is already past it");
      // A person's push: what it changed decides which completed stages it affects. A push sent
      // as loom's bot is loom's (another replica's merge whose answer is not recorded yet, two
      // merges at once), and a head the reconcile found (`healPulls`: no sender) may be loom's own
      // merge too: neither offers anything to re-run. Only the list: trust never rests on it.
      const moved = !stale && state.pr.headSha !== pull.head.sha;
      const byPerson = !sentByLoom && delivery.sender.login !== "";
      const push = moved && byPerson ? await readChangedPaths(deps, octokit, repo, state, pull.head.sha) : {};
      if (!stale && (moved || confirms))
        events.push({
          type: "head.moved",
          at,
          headSha: pull.head.sha,
          before,
          ...(headAt === undefined ? {} : { pushedAt: headAt }),
          ...(fork === null ? {} : { fork }),
          ...(push.changedPaths === undefined ? {} : { changedPaths: push.changedPaths }),
        });
      // A stage counts as merged only while the head contains its commit (a force-push may drop it).
      if (moved)
        events.push(...(await findLostMerges(deps, octokit, repo, state, pull.head.sha, push.compared)));
    }
    if (!trust.trusted) deps.log.info({ path, reason: trust.reason }, "plan waits for /loom approve");
    await applyEvents(deps, { key: keyOf(repo, pull.number, path), events, repo: settings });
  }
}

/** Each running plan not yet on loom's own new head moves there (the reducer keeps an approval). */
async function moveToOwnHead(
  deps: EngineDeps,
  known: PlanRecord[],
  stored: StoredPlanReader,
  delivery: PullRequestDelivery,
): Promise<void> {
  const pull = delivery.pull_request;
  const headAt = readTime(pull.updated_at);
  for (const record of known) {
    if (!record.active) continue;
    if (stored(record).state.pr.headSha === pull.head.sha) continue;
    const event: OrchestratorEvent = {
      type: "head.moved",
      at: deps.now(),
      headSha: pull.head.sha,
      before: delivery.before ?? null,
      ...(headAt === undefined ? {} : { pushedAt: headAt }),
    };
    await applyEvents(deps, { key: record.key, events: [event] });
  }
}

/**
 * Each plan file of the pull request with the path loom knows its plan by: a file renamed
 * `IN_PROGRESS-`/`DONE-` (by loom, or by a person as the reference CLI does) keeps the stored
 * plan's path, so it is the same plan (same id, branches, keys, check runs), never a new one.
 */
function identifyPlanFiles(files: string[], known: PlanRecord[]): { file: string; path: string }[] {
  const seen = new Set<string>();
  const entries: { file: string; path: string }[] = [];
  for (const file of files) {
    const bare = stripLifecyclePrefix(file);
    const path =
      known.find((record) => stripLifecyclePrefix(record.key.planPath) === bare)?.key.planPath ?? file;
    if (seen.has(path)) continue;
    seen.add(path);
    entries.push({ file, path });
  }
  return entries;
}

/** Another plan of the pull request (in the file list, or stored and still running) is there besides `path`. */
function sharedPull(path: string, paths: string[], known: PlanRecord[]): boolean {
  return (
    paths.some((other) => other !== path) ||
    known.some((record) => record.active && record.key.planPath !== path)
  );
}

/**
 * The other plan file of this pull request with `path`'s plan id (`a/PLAN-x.md`, `b/PLAN-x.md`),
 * unless `path`'s own plan already runs: the first one keeps running, a newcomer is refused.
 */
function findIdClash(path: string, paths: string[], known: PlanRecord[]): string | null {
  if (known.some((record) => record.active && record.key.planPath === path)) return null;
  const id = derivePlanId(path);
  return paths.find((other) => other !== path && derivePlanId(other) === id) ?? null;
}

/** A plan file taken out of the pull request stops its plan. */
async function closeRemovedPlans(deps: EngineDeps, known: PlanRecord[], paths: string[]): Promise<void> {
  for (const record of known) {
    if (!record.active || paths.includes(record.key.planPath)) continue;
    await applyEvents(deps, {
      key: record.key,
      events: [{ type: "plan.closed", at: deps.now(), merged: false }],
    });
  }
}

export async function closePlans(deps: EngineDeps, delivery: PullRequestDelivery): Promise<void> {
  const repo = readRepo(delivery);
  const known = await deps.store.listPlansForPull(repo.owner, repo.repo, delivery.pull_request.number);
  const merged = delivery.pull_request.merged === true;
  for (const record of known) {
    if (!record.active) continue;
    await applyEvents(deps, { key: record.key, events: [{ type: "plan.closed", at: deps.now(), merged }] });
  }
}

/**
 * Labels are level-triggered: every plan of the pull request gets the full current set of loom's
 * labels. A label added or removed by someone who may not steer loom keeps the effect it had
 * before (`resolveLabels`), also when a later change by someone who may sends the full set along.
 */
async function changeLabels(deps: EngineDeps, delivery: PullRequestDelivery): Promise<void> {
  const repo = readRepo(delivery);
  const known = (
    await deps.store.listPlansForPull(repo.owner, repo.repo, delivery.pull_request.number)
  ).filter((record) => record.active);
  const [firstRecord] = known;
  if (firstRecord === undefined) return;
  const read = createStoredPlanReader();
  const first = read(firstRecord);
  const changed = delivery.label?.name;
  if (changed !== undefined && parseLabel(changed, first.repo.labelPrefix) === null) return;
  const labels = delivery.pull_request.labels.map((label) => label.name);
  const octokit = await deps.getOctokit(repo.installationId);
  const sender = await authorizeSender(octokit, repo, delivery.sender.login, first.repo.minimumRole);
  if (!sender.authorized) {
    deps.log.info({ sender: delivery.sender.login, reason: sender.reason }, "label change ignored");
  }
  for (const record of known) {
    const stored = read(record);
    const normalize = (names: string[]) =>
      normalizeLabels(names, stored.repo.labelPrefix, stored.state.plan.id);
    const resolved = resolveLabels({
      current: normalize(labels),
      obeyed: stored.state.labels,
      ignored: stored.state.ignoredLabels ?? [],
      changed: changed === undefined ? null : (normalize([changed])[0] ?? null),
      authorized: sender.authorized,
    });
    await applyEvents(deps, {
      key: record.key,
      events: [{ type: "labels.changed", at: deps.now(), ...resolved }],
    });
  }
}
