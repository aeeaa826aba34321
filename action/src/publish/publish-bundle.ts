import { readFile } from "node:fs/promises";
import type { LearningUse } from "../../../src/knowledge/learning-use.ts";
import { listLifecycleNames } from "../../../src/plan/lifecycle-path.ts";
import { join } from "node:path";
import {
  BUNDLE_ARTIFACT,
  BundleManifest,
  type CommitSecret,
  type PublishRefusal,
  type PublishResult,
  type PublishRule,
} from "../../../src/artifacts/publish-result.ts";
import { checkNewCommits } from "./check-new-commits.ts";
import { commitLearnings } from "./commit-learnings.ts";
import { listNewCommits, readFileAt } from "./list-new-commits.ts";
import { parseBundleHeader } from "./parse-bundle-header.ts";
import { readCallerWorkflows } from "./read-caller-workflows.ts";
import { readPublishPolicy } from "./read-publish-policy.ts";
import { readRetirePolicy } from "./read-retire-policy.ts";
import { runGit } from "../git/run-git.ts";

export type PublishBundleInput = {
  cwd: string;
  bundleDir: string;
  /** The manifest's text, or why it could not be downloaded. */
  manifestText: string | Error;
  inputs: { plan_path: string; plan_id: string; stage_id: string; branch: string; base?: string };
  knownSecrets: readonly string[];
  /** The run's accepted learnings (from `loom-result`), checked again and committed after the bundle. */
  learnings?: readonly unknown[];
  /** The learnings the run's session was given and its outcome, recorded with the learnings. */
  learningUse?: LearningUse;
  /** Scratch folder (the learnings commit's private index). */
  tempDir?: string;
  log?: (message: string) => void;
};

const ID = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;

/**
 * The stage branch of this plan and stage: `loom/pr-<n>/<plan-id>/<stage-id>`, or the
 * `loom/<plan-id>/<stage-id>` of loom 0.2 (an App not yet upgraded still dispatches it).
 */
function isStageBranchOf(branch: string, planId: string, stageId: string): boolean {
  const tail = `/${planId}/${stageId}`;
  if (branch === `loom${tail}`) return true;
  return branch.endsWith(tail) && /^loom\/pr-[1-9][0-9]{0,9}$/.test(branch.slice(0, -tail.length));
}
const TIP_REF = "refs/loom-publish/tip";

/** The checks and the push, in order; the first refusal that makes later checks meaningless stops. */
export async function publishBundle(input: PublishBundleInput): Promise<PublishResult> {
  const { cwd, inputs } = input;
  const result: PublishResult = {
    version: 1,
    ok: false,
    plan_id: inputs.plan_id,
    stage_id: inputs.stage_id,
    branch: inputs.branch,
    commits_checked: 0,
    refusals: [],
  };
  const refuse = (rule: PublishRule, detail: string, path?: string): PublishResult => {
    const refusal: PublishRefusal = path === undefined ? { rule, detail } : { rule, path, detail };
    return { ...result, ok: false, refusals: [...result.refusals, refusal] };
  };

  const expected = `loom/pr-<n>/${inputs.plan_id}/${inputs.stage_id}`;
  const idsValid =
    ID.test(inputs.plan_id) &&
    ID.test(inputs.stage_id) &&
    !`${inputs.plan_id}/${inputs.stage_id}`.includes("..");
  if (
    !idsValid ||
    !isStageBranchOf(inputs.branch, inputs.plan_id, inputs.stage_id) ||
    !(await isValidBranchName(cwd, inputs.branch))
  ) {
    return refuse(
      "branch-name",
      `the branch must be ${JSON.stringify(expected)} built from valid ids; got ${JSON.stringify(inputs.branch)}`,
    );
  }

  if (input.manifestText instanceof Error) {
    return refuse(
      "bundle-invalid",
      `the ${BUNDLE_ARTIFACT} artifact could not be read: ${input.manifestText.message}`,
    );
  }
  const manifest = parseManifest(input.manifestText);
  if (manifest === null) return refuse("bundle-invalid", "loom-bundle.json is not a valid bundle manifest");
  if (
    manifest.plan_id !== inputs.plan_id ||
    manifest.stage_id !== inputs.stage_id ||
    manifest.branch !== inputs.branch
  ) {
    return refuse("bundle-invalid", `the bundle is for ${manifest.branch}, not ${inputs.branch}`);
  }
  // The run job found its own secrets in the commits and kept them in the job: nothing to push.
  if (manifest.secrets !== undefined && manifest.secrets.length > 0)
    return { ...result, head_sha: manifest.head_sha, refusals: manifest.secrets.map(refuseCommitSecret) };

  const fetched = await runGit(cwd, [
    "fetch",
    "--no-tags",
    "--prune",
    "origin",
    "+refs/heads/*:refs/remotes/origin/*",
  ]);
  if (fetched.code !== 0) return refuse("not-fast-forward", "could not fetch the branches of origin");
  const mergePoint = await resolveMergePoint(cwd, inputs);
  const existing = await resolve(cwd, `refs/remotes/origin/${inputs.branch}`);
  // A first attempt's run starts from the merge point and the stage branch does not exist yet:
  // this job creates it, at the session's start, which must be on the merge point.
  let base: string;
  if (existing !== null) base = existing;
  else {
    if (mergePoint === null)
      return refuse("not-fast-forward", `the stage branch ${inputs.branch} does not exist on origin`);
    if (!(await isAncestor(cwd, manifest.base_sha, mergePoint.sha))) {
      return refuse(
        "not-fast-forward",
        `the session started on ${manifest.base_sha.slice(0, 12)}, which is not on ${mergePoint.name}; the stage branch ${inputs.branch} is not created from it`,
      );
    }
    base = manifest.base_sha;
  }
  result.base_sha = base;

  const stageRef = `refs/heads/${inputs.branch}`;
  /**
   * Adds the learnings commit on top of `tip` and pushes, unless there is nothing new at all and the
   * stage branch exists (a missing one is created even with no commits: the stage merges from it).
   */
  const finish = async (tip: string): Promise<PublishResult> => {
    const head = await addLearnings(input, tip);
    if (head === base && existing !== null) return { ...result, ok: true };
    const pushed = await runGit(cwd, ["push", "--no-verify", "--porcelain", "origin", `${head}:${stageRef}`]);
    if (pushed.code !== 0) {
      return refuse(
        "push-rejected",
        `origin refused the push to ${inputs.branch}: ${pushed.stderr.trim().slice(-1000)}`,
      );
    }
    return { ...result, ok: true, pushed_sha: head };
  };

  if (manifest.bundle === null) {
    result.head_sha = base;
    return finish(base);
  }
  const bundlePath = join(input.bundleDir, manifest.bundle);
  const header = parseBundleHeader(await readBytes(bundlePath));
  if (!header.ok) return refuse("bundle-invalid", `${manifest.bundle}: ${header.reason}`);
  const others = header.header.refs.filter((ref) => ref.ref !== stageRef);
  if (others.length > 0 || header.header.refs.length !== 1) {
    const names = others.map((ref) => ref.ref).join(", ") || "(none)";
    return refuse("ref-not-allowed", `the bundle may carry only ${stageRef}; it carries ${names}`);
  }
  // The session started on the stage branch, or (a first attempt) on the merge point, which may have
  // moved on since the stage branch was cut from it: the tip must still fast-forward the branch.
  for (const prerequisite of header.header.prerequisites) {
    const known =
      (await isAncestor(cwd, prerequisite, base)) ||
      (mergePoint !== null && (await isAncestor(cwd, prerequisite, mergePoint.sha)));
    if (!known) {
      const where = mergePoint === null ? inputs.branch : `${inputs.branch} or ${mergePoint.name}`;
      return refuse(
        "not-fast-forward",
        `the bundle builds on ${prerequisite.slice(0, 12)}, which is not on ${where} (it moved, or the bundle is from elsewhere)`,
      );
    }
  }
  if ((await runGit(cwd, ["bundle", "verify", "--quiet", bundlePath])).code !== 0) {
    return refuse("bundle-invalid", `${manifest.bundle} does not verify (git bundle verify)`);
  }
  const unpacked = await runGit(cwd, [
    "fetch",
    "--no-tags",
    "--no-write-fetch-head",
    bundlePath,
    `+${stageRef}:${TIP_REF}`,
  ]);
  const tip = unpacked.code === 0 ? await resolve(cwd, TIP_REF) : null;
  if (tip === null) return refuse("bundle-invalid", `${manifest.bundle} could not be fetched`);
  result.head_sha = tip;
  if (tip === base) return finish(base);
  if (!(await isAncestor(cwd, base, tip))) {
    return refuse(
      "not-fast-forward",
      `the bundle's tip ${tip.slice(0, 12)} does not fast-forward ${inputs.branch} at ${base.slice(0, 12)}`,
    );
  }

  // The plan under whichever lifecycle name it has on the stage branch (loom renames it).
  let planText: string | null = null;
  for (const name of listLifecycleNames(inputs.plan_path)) {
    planText = await readFileAt(cwd, base, name);
    if (planText !== null) break;
  }
  const { policy } = readPublishPolicy(planText, inputs.stage_id);
  const callerWorkflows = readCallerWorkflows(await readFileAt(cwd, base, ".github/loom.yml"));
  const commits = await listNewCommits(cwd, tip);
  result.commits_checked = commits.length;
  result.refusals = await checkNewCommits(
    { cwd, policy, planPath: inputs.plan_path, callerWorkflows, knownSecrets: input.knownSecrets },
    commits,
  );
  if (result.refusals.length > 0) return result;
  return finish(tip);
}

/** `tip` with the run's learnings committed on top, or `tip` itself when none is left to add. */
async function addLearnings(input: PublishBundleInput, tip: string): Promise<string> {
  const log = input.log ?? (() => undefined);
  // A session given no learnings and adding none changes no stats: nothing to read or retire.
  const nothing = (input.learnings ?? []).length === 0 && input.learningUse === undefined;
  if (input.tempDir === undefined || nothing) return tip;
  const retire = readRetirePolicy(await readFileAt(input.cwd, tip, ".github/loom.yml"));
  if (retire.problem !== undefined) log(`learnings retire with the defaults: ${retire.problem}`);
  const commit = await commitLearnings({
    cwd: input.cwd,
    parent: tip,
    learnings: input.learnings ?? [],
    origin: { plan_id: input.inputs.plan_id, stage_id: input.inputs.stage_id },
    knownSecrets: input.knownSecrets,
    tempDir: input.tempDir,
    ...(input.learningUse === undefined ? {} : { use: input.learningUse }),
    retirePolicy: retire.policy,
  });
  for (const note of commit.skipped) log(`learning not committed: ${note}`);
  if (commit.sha === null) return tip;
  log(
    `committed ${commit.paths.length} learning(s) in ${commit.sha.slice(0, 12)}: ${commit.paths.join(", ")}`,
  );
  if (commit.usePath !== undefined) log(`recorded the learnings the session was given: ${commit.usePath}`);
  for (const r of commit.retired) log(`retired ${r.from} (${r.reason}): now ${r.to}`);
  return commit.sha;
}

const WHAT = "one of the run job's secrets (the model key or a token it holds)";

function refuseCommitSecret(secret: CommitSecret): PublishRefusal {
  const at = `commit ${secret.commit.slice(0, 12)}`;
  const how = secret.encoding === "plain" ? "" : ` ${secret.encoding}-encoded`;
  const after =
    "the run job did not upload these commits; revoke and replace the secret, then retry the stage (the value is not shown)";
  switch (secret.where) {
    case "content":
      return {
        rule: "secret",
        path: secret.path,
        detail: `${at} writes ${WHAT}${how} into ${secret.path ?? "a file"}; ${after}`,
      };
    case "path":
      return {
        rule: "secret",
        path: "(a file name)",
        detail: `${at} adds a file whose name holds ${WHAT}${how}; ${after}`,
      };
    case "commit":
      return { rule: "secret", detail: `the message or author of ${at} holds ${WHAT}${how}; ${after}` };
  }
}

function parseManifest(text: string): BundleManifest | null {
  try {
    const parsed = BundleManifest.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}

async function readBytes(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return new Uint8Array();
    throw error;
  }
}

async function resolve(cwd: string, ref: string): Promise<string | null> {
  const out = await runGit(cwd, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  return out.code === 0 ? out.stdout.trim() : null;
}

async function isAncestor(cwd: string, ancestor: string, of: string): Promise<boolean> {
  return (await runGit(cwd, ["merge-base", "--is-ancestor", ancestor, of])).code === 0;
}

/**
 * The merge point the dispatch named (`base`) on origin: a branch outside loom's stage branches, or
 * loom's result branch of a fork plan; null when not given, not such a branch, or missing.
 */
async function resolveMergePoint(
  cwd: string,
  inputs: PublishBundleInput["inputs"],
): Promise<{ name: string; sha: string } | null> {
  const name = inputs.base ?? "";
  if (name === "" || name === inputs.branch || !(await isValidBranchName(cwd, name))) return null;
  const sha = await resolve(cwd, `refs/remotes/origin/${name}`);
  return sha === null ? null : { name, sha };
}

async function isValidBranchName(cwd: string, branch: string): Promise<boolean> {
  return (await runGit(cwd, ["check-ref-format", `refs/heads/${branch}`])).code === 0;
}
