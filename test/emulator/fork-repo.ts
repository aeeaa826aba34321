import path from "node:path";
import { createGitRepo } from "./create-git-repo.ts";
import { takeId, type EmulatorState, type RepoRecord } from "./emulator-state.ts";
import { runGitOk } from "./run-git.ts";

/**
 * Forks as GitHub keeps them: a repository of its own (`<owner>/<name>`, its own git refs), made
 * from the parent's branches at fork time. GitHub facts relied on:
 * - a pull request from a fork lives in the base repository; its head branch lives in the fork,
 *   and the base repository exposes the head commit as `refs/pull/<n>/head` (so `POST /merges`
 *   and `POST …/git/refs` in the base repository can name that SHA);
 * - an App installed on the base repository is not installed on a contributor's fork: its
 *   installation token (and an Actions job's `GITHUB_TOKEN`, scoped to its own repository) cannot
 *   write there. The emulator answers 404 to every request of those tokens for the fork, reads
 *   included (stricter than GitHub for a public fork, never more lenient).
 */

/** Installation id of a repository the App is not installed on (no installation token names it). */
export const NOT_INSTALLED = 0;

export async function createFork(
  state: EmulatorState,
  parent: RepoRecord,
  fullName: string,
  now: () => number,
): Promise<RepoRecord> {
  const [owner = "", name = parent.name] = fullName.split("/");
  const dir = path.join(path.dirname(parent.git.dir), `${owner}__${name}.git`);
  await runGitOk(path.dirname(dir), ["clone", "--bare", "--quiet", parent.git.dir, dir]);
  await runGitOk(dir, ["config", "uploadpack.allowAnySHA1InWant", "true"]);
  // A bare clone keeps the parent as `origin`; GitHub's fork has no such link in its refs.
  await runGitOk(dir, ["remote", "remove", "origin"]);
  const fork: RepoRecord = {
    id: takeId(state),
    owner,
    name,
    fullName: `${owner}/${name}`,
    defaultBranch: parent.defaultBranch,
    installationId: NOT_INSTALLED,
    private: parent.private,
    git: createGitRepo(dir, now),
    workflows: new Map(),
    forkOf: parent.fullName,
  };
  state.repos.set(fork.fullName.toLowerCase(), fork);
  return fork;
}

/** Copies the fork's commit `sha` into the base repository as `refs/pull/<number>/head`. */
export async function exposePullHead(
  base: RepoRecord,
  fork: RepoRecord,
  number: number,
  sha: string,
): Promise<void> {
  await runGitOk(base.git.dir, [
    "fetch",
    "--quiet",
    "--no-tags",
    fork.git.dir,
    `+${sha}:refs/pull/${number}/head`,
  ]);
  base.git.forgetRefs();
}

/** Whether `login` (who a token acts as) is kept out of `repo`: the App and job tokens, on a fork. */
export function isShutOut(
  repo: RepoRecord,
  login: string,
  app: { botLogin: string; appSlug: string },
): boolean {
  if (repo.forkOf === undefined) return false;
  return login === app.botLogin || login === app.appSlug || login === "github-actions[bot]";
}
