import type { PublishRefusal } from "../../../src/artifacts/publish-result.ts";
import { findSecrets } from "../../../src/redact/redact-secrets.ts";
import { isAppendOnly, keepsAllLines, onlyCombinesParents } from "./check-append-only.ts";
import { callsLoomStage, classifyPath, isLearningsPath, type ProtectedPathRule } from "./classify-path.ts";
import { listChangedPaths, readFileAt, type NewCommit } from "./list-new-commits.ts";
import { parseAddedLines } from "./parse-added-lines.ts";
import type { PublishPolicy } from "./read-publish-policy.ts";
import { readGit, runGit } from "../git/run-git.ts";

export type CheckContext = {
  cwd: string;
  policy: PublishPolicy;
  planPath: string;
  /** File names in `.github/workflows/` of the callers the App dispatches (`workflow:` of `.github/loom.yml`). */
  callerWorkflows: readonly string[];
  knownSecrets: readonly string[];
};

/** Every refusal the new commits earn: plans, loom config, protected paths, knowledge rewrites, secrets. */
export async function checkNewCommits(
  context: CheckContext,
  commits: readonly NewCommit[],
): Promise<PublishRefusal[]> {
  const refusals: PublishRefusal[] = [];
  const seen = new Set<string>();
  const add = (refusal: PublishRefusal): void => {
    const key = `${refusal.rule}\0${refusal.path ?? ""}`;
    if (seen.has(key)) return;
    seen.add(key);
    refusals.push(refusal);
  };
  for (const commit of commits) {
    for (const refusal of await checkPaths(context, commit)) add(refusal);
    for (const refusal of await checkSecrets(context, commit)) add(refusal);
  }
  return refusals;
}

const short = (sha: string): string => sha.slice(0, 12);

/**
 * A merge's own changes to protected paths count too. `-c` lists only paths differing from every
 * parent, which hides a merge that keeps one side's old version where git would have taken the
 * other side's change (reverting a person's plan edit, dropping a plan a person added). So for a
 * merge every path differing from any parent is looked at, and passes only when the merge holds
 * what git's merge takes without a choice (`isMergedAsGitWould`). Knowledge files keep their own
 * rules (a merge may combine both sides' appended lines); one the merge holds as one side has it
 * passes only when git would have taken that side, so a resolution cannot drop the other side's lines.
 */
async function checkPaths(context: CheckContext, commit: NewCommit): Promise<PublishRefusal[]> {
  const refusals: PublishRefusal[] = [];
  const changed = await listChangedPaths(context.cwd, commit);
  const merge = commit.parents.length > 1;
  const paths = merge
    ? [...new Set([...changed, ...(await listPathsDifferingFromAnyParent(context.cwd, commit))])]
    : changed;
  for (const path of paths) {
    let rule = classifyPath(path, context.callerWorkflows);
    if (rule === "workflow-change" && (await isCallerWorkflow(context.cwd, commit, path))) {
      rule = "loom-config-change";
    }
    if (rule === null) continue;
    const ownRules = rule === "knowledge-rewrite" && changed.includes(path);
    if (merge && !ownRules && (await isMergedAsGitWould(context.cwd, commit, path))) continue;
    const refusal = await refusalFor(context, commit, path, rule);
    if (refusal !== null) refusals.push({ rule, path, detail: refusal });
  }
  return refusals;
}

/** Why a change to `path` under `rule` is refused, or null when the plan allows it. */
async function refusalFor(
  context: CheckContext,
  commit: NewCommit,
  path: string,
  rule: ProtectedPathRule,
): Promise<string | null> {
  const { policy } = context;
  const at = `commit ${short(commit.sha)}`;
  switch (rule) {
    case "plan-change":
      return path === context.planPath
        ? `${at} changes the plan file this stage runs; plans are changed by people in the pull request, whatever the plan allows`
        : `${at} adds, changes, renames or deletes the plan file ${path}; sessions may not write plans (a new plan would run as loom's own work), whatever the plan allows`;
    case "loom-config-change":
      return `${at} changes loom's configuration ${path} (.github/loom.yml or a workflow that calls loom's stage workflow); people change it on the default branch, whatever the plan allows`;
    case "github-change":
      return `${at} changes ${path} under .github/ outside .github/workflows/; people change it, whatever the plan allows`;
    case "workflow-change":
      return policy.allow_workflow_changes
        ? null
        : `${at} changes the workflow ${path}; set allow_workflow_changes: true on the plan or stage to allow changes under .github/workflows/`;
    case "agent-config-change":
      return policy.allow_agent_config_changes
        ? null
        : `${at} changes agent configuration ${path} (read by later sessions: instructions, settings, hooks, MCP servers); set allow_agent_config_changes: true on the plan or stage to allow it`;
    case "knowledge-rewrite":
      if (policy.allow_knowledge_edits) return null;
      if (isLearningsPath(path)) {
        return (await isMergedFromParents(context.cwd, commit, path))
          ? null
          : `${at} changes the learnings log ${path}; learnings are recorded in the session's learnings file and committed by loom after checking them (or set allow_knowledge_edits: true)`;
      }
      return (await isAppendedOnly(context.cwd, commit, path))
        ? null
        : `${at} edits or deletes existing lines of the append-only knowledge file ${path}; only appending is allowed (or set allow_knowledge_edits: true)`;
  }
}

/** Paths where a merge differs from at least one of its parents. */
async function listPathsDifferingFromAnyParent(cwd: string, commit: NewCommit): Promise<string[]> {
  const paths = new Set<string>();
  for (const parent of commit.parents) {
    const out = await readGit(cwd, [
      "diff-tree",
      "-r",
      "--no-renames",
      "--name-only",
      "-z",
      parent,
      commit.sha,
    ]);
    for (const path of out.split("\0")) if (path !== "") paths.add(path);
  }
  return [...paths];
}

/**
 * For a two-parent merge: `path` holds what git's three-way merge takes with no choice to make
 * (the side that changed it since the merge base, or what both sides agree on). A conflict the
 * session resolved, or an octopus merge, is the session's own change.
 */
async function isMergedAsGitWould(cwd: string, commit: NewCommit, path: string): Promise<boolean> {
  const [ours, theirs, ...more] = commit.parents;
  if (ours === undefined || theirs === undefined || more.length > 0) return false;
  const base = (await runGit(cwd, ["merge-base", ours, theirs])).stdout.trim();
  const entry = async (rev: string): Promise<string> =>
    rev === "" ? "" : readGit(cwd, ["ls-tree", "-z", rev, "--", path]);
  const [b, o, t, m] = await Promise.all([entry(base), entry(ours), entry(theirs), entry(commit.sha)]);
  if (o === t) return m === o;
  if (b === o) return m === t;
  if (b === t) return m === o;
  return false;
}

/** A workflow that calls loom's stage workflow before or after this commit is a caller: loom's configuration. */
async function isCallerWorkflow(cwd: string, commit: NewCommit, path: string): Promise<boolean> {
  for (const rev of [commit.sha, ...commit.parents]) {
    const text = await readFileAt(cwd, rev, path);
    if (text !== null && callsLoomStage(text)) return true;
  }
  return false;
}

async function isAppendedOnly(cwd: string, commit: NewCommit, path: string): Promise<boolean> {
  const after = await readFileAt(cwd, commit.sha, path);
  if (commit.parents.length <= 1) {
    const parent = commit.parents[0];
    const before = parent === undefined ? null : await readFileAt(cwd, parent, path);
    if (before === null) return true;
    return after !== null && isAppendOnly(before, after);
  }
  for (const parent of commit.parents) {
    const before = await readFileAt(cwd, parent, path);
    if (before !== null && (after === null || !keepsAllLines(before, after))) return false;
  }
  return true;
}

/** Only a merge may touch the learnings log, and only by bringing both sides' learnings together. */
async function isMergedFromParents(cwd: string, commit: NewCommit, path: string): Promise<boolean> {
  if (commit.parents.length <= 1) return false;
  const parents = await Promise.all(commit.parents.map((parent) => readFileAt(cwd, parent, path)));
  return onlyCombinesParents(parents, await readFileAt(cwd, commit.sha, path));
}

async function checkSecrets(context: CheckContext, commit: NewCommit): Promise<PublishRefusal[]> {
  const refusals: PublishRefusal[] = [];
  const merge = commit.parents.length > 1;
  const patch = await readGit(context.cwd, [
    "diff-tree",
    "-p",
    "-r",
    "--no-commit-id",
    "--no-ext-diff",
    "--no-color",
    // Binary files too: a token dumped into a database or an archive leaks all the same.
    "--text",
    "--unified=0",
    ...(merge ? ["--cc"] : ["--root", "--no-renames"]),
    commit.sha,
  ]);
  for (const added of parseAddedLines(patch, Math.max(1, commit.parents.length))) {
    for (const finding of findSecrets(added.text, context.knownSecrets)) {
      refusals.push({
        rule: "secret",
        path: added.path,
        detail: `commit ${short(commit.sha)} adds what looks like a ${finding.kind} at ${added.path}:${added.line}:${finding.column}; remove it from the history (the value is not shown)`,
      });
    }
  }
  const raw = await readGit(context.cwd, ["cat-file", "commit", commit.sha]);
  const message = raw.slice(raw.indexOf("\n\n") + 2);
  for (const finding of findSecrets(message, context.knownSecrets)) {
    refusals.push({
      rule: "secret",
      detail: `the message of commit ${short(commit.sha)} holds what looks like a ${finding.kind} (line ${finding.line}); reword the commit (the value is not shown)`,
    });
  }
  for (const path of await listChangedPaths(context.cwd, commit)) {
    for (const finding of findSecrets(path, context.knownSecrets)) {
      refusals.push({
        rule: "secret",
        path: "(a file name)",
        detail: `commit ${short(commit.sha)} adds a file whose name holds what looks like a ${finding.kind}`,
      });
    }
  }
  return refusals;
}
