import type { PublishRefusal } from "../../../src/artifacts/publish-result.ts";
import { findSecrets } from "../../../src/redact/redact-secrets.ts";
import { isAppendOnly, keepsAllLines, onlyCombinesParents } from "./check-append-only.ts";
import { classifyPath, isLearningsPath } from "./classify-path.ts";
import { listChangedPaths, readFileAt, type NewCommit } from "./list-new-commits.ts";
import { parseAddedLines } from "./parse-added-lines.ts";
import type { PublishPolicy } from "./read-publish-policy.ts";
import { readGit } from "../git/run-git.ts";

export type CheckContext = {
  cwd: string;
  policy: PublishPolicy;
  planPath: string;
  knownSecrets: readonly string[];
};

/** Every refusal the new commits earn: protected paths, knowledge rewrites, the plan, secrets. */
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

async function checkPaths(context: CheckContext, commit: NewCommit): Promise<PublishRefusal[]> {
  const { policy } = context;
  const refusals: PublishRefusal[] = [];
  for (const path of await listChangedPaths(context.cwd, commit)) {
    if (path === context.planPath) {
      refusals.push({
        rule: "plan-change",
        path,
        detail: `commit ${short(commit.sha)} changes the plan file this stage runs; plans are changed by people in the pull request`,
      });
    }
    const rule = classifyPath(path);
    if (rule === "workflow-change" && !policy.allow_workflow_changes) {
      refusals.push({
        rule,
        path,
        detail: `commit ${short(commit.sha)} changes ${path} under .github/; set allow_workflow_changes: true on the plan or stage to allow it`,
      });
    } else if (rule === "agent-config-change" && !policy.allow_agent_config_changes) {
      refusals.push({
        rule,
        path,
        detail: `commit ${short(commit.sha)} changes agent configuration ${path}; set allow_agent_config_changes: true on the plan or stage to allow it`,
      });
    } else if (rule === "knowledge-rewrite" && !policy.allow_knowledge_edits && isLearningsPath(path)) {
      if (!(await isMergedFromParents(context.cwd, commit, path))) {
        refusals.push({
          rule,
          path,
          detail: `commit ${short(commit.sha)} changes the learnings log ${path}; learnings are recorded in the session's learnings file and committed by loom after checking them (or set allow_knowledge_edits: true)`,
        });
      }
    } else if (rule === "knowledge-rewrite" && !policy.allow_knowledge_edits) {
      if (!(await isAppendedOnly(context.cwd, commit, path))) {
        refusals.push({
          rule,
          path,
          detail: `commit ${short(commit.sha)} edits or deletes existing lines of the append-only knowledge file ${path}; only appending is allowed (or set allow_knowledge_edits: true)`,
        });
      }
    }
  }
  return refusals;
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
