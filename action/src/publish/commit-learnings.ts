import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { findNearDuplicate } from "../../../src/knowledge/find-near-duplicate.ts";
import { DEFAULT_RETIRE_POLICY, type RetirePolicy } from "../../../src/knowledge/find-retired-learnings.ts";
import { gateLearning } from "../../../src/knowledge/gate-learning.ts";
import { RecordedLearning } from "../../../src/knowledge/learning.ts";
import {
  LEARNINGS_DIR,
  LEARNINGS_LOG,
  LEARNINGS_RETIRED_DIR,
  learningFilePath,
  parseLearningFile,
  renderLearningFile,
} from "../../../src/knowledge/learning-file.ts";
import { LearningUse, learningUsePath, renderLearningUse } from "../../../src/knowledge/learning-use.ts";
import { MAX_LEARNINGS_PER_SESSION } from "../../../src/knowledge/review-learnings.ts";
import { readFileAt } from "./list-new-commits.ts";
import { retireLearningsAt, type LearningFileAt, type RetiredFile } from "./retire-learnings-at.ts";
import { readGit } from "../git/run-git.ts";

/** Who writes the learnings commit: the publish job, not the session. */
export const PUBLISH_IDENTITY = {
  name: "loom-publish",
  email: "loom-publish@users.noreply.github.com",
} as const;

const MAX_EXISTING_FILES = 2000;

export type LearningsCommit = {
  /** The new tip, or null when there was nothing to commit. */
  sha: string | null;
  /** The new learning files. */
  paths: string[];
  /** Why learnings from the run were left out (re-checked here, the run job is not trusted). */
  skipped: string[];
  /** The use record written, when the session was given learnings. */
  usePath?: string;
  /** The learnings moved to `learnings/retired/`, with the reason. */
  retired: Pick<RetiredFile, "from" | "to" | "reason">[];
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
  /** Which learnings the session was given and how it ended, to record (`learnings/uses/`). */
  use?: LearningUse;
  /** When learnings are retired (default: `DEFAULT_RETIRE_POLICY`). */
  retirePolicy?: RetirePolicy;
};

/** The learnings already on `rev`: the per-learning files (retired ones too) and `learnings.md`. */
async function readLearningsAt(
  cwd: string,
  rev: string,
): Promise<{ paths: Set<string>; files: LearningFileAt[]; learnings: RecordedLearning[] }> {
  const listed = await readGit(cwd, ["ls-tree", "-r", "-z", "--name-only", rev, "--", `${LEARNINGS_DIR}/`]);
  const paths = new Set(listed.split("\0").filter((path) => path !== ""));
  const files: LearningFileAt[] = [];
  // Newest first (names start with the date), retired ones after the live ones.
  const markdown = [...paths]
    .filter((path) => path.endsWith(".md"))
    .sort()
    .reverse();
  const retiredLast = [
    ...markdown.filter((path) => !path.startsWith(`${LEARNINGS_RETIRED_DIR}/`)),
    ...markdown.filter((path) => path.startsWith(`${LEARNINGS_RETIRED_DIR}/`)),
  ];
  for (const path of retiredLast.slice(0, MAX_EXISTING_FILES)) {
    const text = (await readFileAt(cwd, rev, path)) ?? "";
    files.push({ path, text, learnings: parseLearningFile(text) });
  }
  const learnings = files.flatMap((file) => file.learnings);
  learnings.push(...parseLearningFile((await readFileAt(cwd, rev, LEARNINGS_LOG)) ?? ""));
  return { paths, files, learnings };
}

/**
 * Commits, in one commit on top of `parent` and without touching the checkout (a private index):
 * the run's accepted learnings as new files under `doc/loom/knowledge/learnings/`, the record of
 * the learnings the session was given (`learnings/uses/`), and the learnings that are due to
 * retire moved to `learnings/retired/` with the reason (in the file and the commit message). Every
 * new learning is checked again (schema, write gate with this job's secrets, near-duplicates of
 * what `parent` holds, retired ones included): the run job ran the model, so what it reports is
 * data to check, not to trust. Existing learning files are never edited in place.
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
  const use = input.use === undefined ? undefined : LearningUse.parse(input.use);
  const usePath = use === undefined ? undefined : learningUsePath(use);
  const retired = (
    await retireLearningsAt(cwd, parent, existing.files, use, input.retirePolicy ?? DEFAULT_RETIRE_POLICY)
  ).filter((file) => !existing.paths.has(file.to));
  const writes = [
    ...kept.map((k) => ({ path: k.path, text: renderLearningFile(k.learning) })),
    ...(use === undefined || usePath === undefined || existing.paths.has(usePath)
      ? []
      : [{ path: usePath, text: renderLearningUse(use) }]),
    ...retired.map((r) => ({ path: r.to, text: r.text })),
  ];
  const summary = {
    paths: kept.map((k) => k.path),
    skipped,
    retired: retired.map(({ from, to, reason }) => ({ from, to, reason })),
  };
  if (writes.length === 0) return { sha: null, ...summary };

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
  for (const [index, { path, text }] of writes.entries()) {
    const file = join(work, `${index}.txt`);
    await writeFile(file, text);
    const blob = (await readGit(cwd, ["hash-object", "-w", "--", file], env)).trim();
    await readGit(cwd, ["update-index", "--add", "--cacheinfo", `100644,${blob},${path}`], env);
  }
  for (const { from } of retired) await readGit(cwd, ["update-index", "--force-remove", "--", from], env);
  const tree = (await readGit(cwd, ["write-tree"], env)).trim();
  const sha = (
    await readGit(
      cwd,
      [
        "commit-tree",
        tree,
        "-p",
        parent,
        "-m",
        commitSubject(input.origin.stage_id, kept.length, use, retired.length),
        "-m",
        commitBody(kept, use, retired),
      ],
      env,
    )
  ).trim();
  return { sha, ...summary, ...(usePath === undefined || use === undefined ? {} : { usePath }) };
}

/** `loom: learnings of stage x: 1 recorded, 3 given noted (completed), 1 retired`. */
function commitSubject(
  stageId: string,
  added: number,
  use: LearningUse | undefined,
  retired: number,
): string {
  const parts = [
    ...(added > 0 ? [`${added} recorded`] : []),
    ...(use === undefined ? [] : [`${use.given.length} given noted (${use.outcome})`]),
    ...(retired > 0 ? [`${retired} retired`] : []),
  ];
  return `loom: learnings of stage ${stageId}: ${parts.join(", ")}`;
}

function commitBody(
  kept: readonly { learning: RecordedLearning }[],
  use: LearningUse | undefined,
  retired: readonly RetiredFile[],
): string {
  return [
    ...kept.map((k) => `- ${k.learning.category}: ${k.learning.summary}`),
    ...(use === undefined ? [] : [`- given (${use.outcome}): ${use.given.join(", ")}`]),
    ...retired.map((r) => `- retired ${r.id}: ${r.reason}`),
  ].join("\n");
}
