import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { findNearDuplicate } from "../../../src/knowledge/find-near-duplicate.ts";
import { gateLearning } from "../../../src/knowledge/gate-learning.ts";
import { RecordedLearning } from "../../../src/knowledge/learning.ts";
import {
  LEARNINGS_DIR,
  LEARNINGS_LOG,
  learningFilePath,
  parseLearningFile,
  renderLearningFile,
} from "../../../src/knowledge/learning-file.ts";
import { MAX_LEARNINGS_PER_SESSION } from "../../../src/knowledge/review-learnings.ts";
import { readFileAt } from "./list-new-commits.ts";
import { readGit } from "../git/run-git.ts";

/** Who writes the learnings commit: the publish job, not the session. */
export const PUBLISH_IDENTITY = {
  name: "loom-publish",
  email: "loom-publish@users.noreply.github.com",
} as const;

const MAX_EXISTING_FILES = 2000;

export type LearningsCommit = {
  /** The new tip, or null when no learning was left to commit. */
  sha: string | null;
  paths: string[];
  /** Why learnings from the run were left out (re-checked here, the run job is not trusted). */
  skipped: string[];
};

export type CommitLearningsInput = {
  cwd: string;
  /** The commit to build on: the bundle's tip (or the branch head when the bundle is empty). */
  parent: string;
  learnings: readonly unknown[];
  origin: { plan_id: string; stage_id: string };
  knownSecrets: readonly string[];
  /** Scratch folder for the temporary index and the files' contents. */
  tempDir: string;
};

/** The learnings already on `rev`: the per-learning files and `learnings.md`. */
async function readLearningsAt(
  cwd: string,
  rev: string,
): Promise<{ paths: Set<string>; learnings: RecordedLearning[] }> {
  const listed = await readGit(cwd, ["ls-tree", "-r", "-z", "--name-only", rev, "--", `${LEARNINGS_DIR}/`]);
  const paths = new Set(listed.split("\0").filter((path) => path !== ""));
  const learnings: RecordedLearning[] = [];
  for (const path of [...paths].sort().reverse().slice(0, MAX_EXISTING_FILES))
    learnings.push(...parseLearningFile((await readFileAt(cwd, rev, path)) ?? ""));
  learnings.push(...parseLearningFile((await readFileAt(cwd, rev, LEARNINGS_LOG)) ?? ""));
  return { paths, learnings };
}

/**
 * Commits the run's accepted learnings as new files under `doc/loom/knowledge/learnings/`, one
 * commit on top of `parent`, without touching the checkout (a private index). Every learning is
 * checked again (schema, write gate with this job's secrets, near-duplicates of what `parent`
 * holds): the run job ran the model, so what it reports is data to check, not to trust. Existing
 * files are never changed: a learning whose file exists is skipped.
 */
export async function commitLearnings(input: CommitLearningsInput): Promise<LearningsCommit> {
  const { cwd, parent } = input;
  const existing = await readLearningsAt(cwd, parent);
  const kept: { path: string; learning: RecordedLearning }[] = [];
  const skipped: string[] = [];
  for (const [index, value] of input.learnings.slice(0, MAX_LEARNINGS_PER_SESSION).entries()) {
    const parsed = RecordedLearning.safeParse(value);
    if (!parsed.success) {
      skipped.push(`learning ${index + 1}: not a valid learning`);
      continue;
    }
    const learning = { ...parsed.data, ...input.origin };
    const gated = gateLearning(learning, input.knownSecrets);
    const duplicate = findNearDuplicate(learning, [...existing.learnings, ...kept.map((k) => k.learning)]);
    const path = learningFilePath(learning);
    if (gated !== null) skipped.push(`learning ${index + 1}: ${gated}`);
    else if (duplicate !== null)
      skipped.push(`learning ${index + 1}: a near-duplicate of a learning on the branch`);
    else if (existing.paths.has(path) || kept.some((k) => k.path === path))
      skipped.push(`learning ${index + 1}: ${path} exists already`);
    else kept.push({ path, learning });
  }
  if (kept.length === 0) return { sha: null, paths: [], skipped };

  const work = join(input.tempDir, "learnings-commit");
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  const env = {
    ...process.env,
    GIT_INDEX_FILE: join(work, "index"),
    GIT_AUTHOR_NAME: PUBLISH_IDENTITY.name,
    GIT_AUTHOR_EMAIL: PUBLISH_IDENTITY.email,
    GIT_COMMITTER_NAME: PUBLISH_IDENTITY.name,
    GIT_COMMITTER_EMAIL: PUBLISH_IDENTITY.email,
  };
  await readGit(cwd, ["read-tree", parent], env);
  for (const [index, { path, learning }] of kept.entries()) {
    const file = join(work, `${index}.md`);
    await writeFile(file, renderLearningFile(learning));
    const blob = (await readGit(cwd, ["hash-object", "-w", "--", file], env)).trim();
    await readGit(cwd, ["update-index", "--add", "--cacheinfo", `100644,${blob},${path}`], env);
  }
  const tree = (await readGit(cwd, ["write-tree"], env)).trim();
  const subject = `loom: record ${kept.length} learning${kept.length === 1 ? "" : "s"} of stage ${input.origin.stage_id}`;
  const body = kept.map((k) => `- ${k.learning.category}: ${k.learning.summary}`).join("\n");
  const sha = (
    await readGit(cwd, ["commit-tree", tree, "-p", parent, "-m", subject, "-m", body], env)
  ).trim();
  return { sha, paths: kept.map((k) => k.path), skipped };
}
