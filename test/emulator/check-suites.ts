import type { CheckRunRecord, CheckSuiteRecord, EmulatorState, RepoRecord } from "./emulator-state.ts";
import { takeId } from "./emulator-state.ts";
import type { CommitInfo } from "./create-git-repo.ts";
import { appJson } from "./repo-json.ts";
import { iso, type Json, type JsonContext } from "./user-json.ts";

/**
 * Check suites as GitHub keeps them: one per app and commit, created with the app's first check
 * run on that commit; every later check run of the app on the commit joins it.
 */
export function findOrCreateCheckSuite(
  state: EmulatorState,
  repo: RepoRecord,
  app: string,
  headSha: string,
  now: number,
): CheckSuiteRecord {
  const found = state.checkSuites.find(
    (suite) => suite.repo === repo.fullName && suite.app === app && suite.headSha === headSha,
  );
  if (found) return found;
  const suite: CheckSuiteRecord = {
    repo: repo.fullName,
    id: takeId(state),
    headSha,
    app,
    createdAt: now,
    updatedAt: now,
  };
  state.checkSuites.push(suite);
  return suite;
}

/** The suite's newest check run per name (what "latest check runs" counts). */
export function latestRunsOf(state: EmulatorState, suite: CheckSuiteRecord): CheckRunRecord[] {
  const newest = new Map<string, CheckRunRecord>();
  for (const run of state.checkRuns) {
    if (run.checkSuiteId !== suite.id) continue;
    const known = newest.get(run.name);
    if (!known || known.id < run.id) newest.set(run.name, run);
  }
  return [...newest.values()];
}

/** Conclusions "Re-run failed checks" is offered for. */
const FAILED = new Set(["failure", "timed_out", "cancelled", "action_required", "startup_failure"]);

export function hasFailedRun(state: EmulatorState, suite: CheckSuiteRecord): boolean {
  return latestRunsOf(state, suite).some((run) => run.conclusion !== null && FAILED.has(run.conclusion));
}

/**
 * The `check_suite` object of a `check_suite.rerequested` delivery. GitHub resets a rerequested
 * suite to `queued` with no conclusion (its check runs stay as they are). `head_branch` is null and
 * `pull_requests` empty when the head is in a fork; a pull request matches when its head branch and
 * SHA are the suite's.
 */
export function rerequestedSuiteJson(
  ctx: JsonContext,
  repo: RepoRecord,
  suite: CheckSuiteRecord,
  input: { headBranch: string | null; pulls: Json[]; commit: CommitInfo; runs: number },
): Json {
  const url = `${ctx.url}/repos/${repo.fullName}/check-suites/${suite.id}`;
  return {
    id: suite.id,
    node_id: `CS_${suite.id}`,
    head_branch: input.headBranch,
    head_sha: suite.headSha,
    status: "queued",
    conclusion: null,
    url,
    before: null,
    after: suite.headSha,
    pull_requests: input.pulls,
    app: appJson(ctx, repo.owner),
    created_at: iso(suite.createdAt),
    updated_at: iso(suite.updatedAt),
    rerequestable: true,
    runs_rerequestable: true,
    latest_check_runs_count: input.runs,
    check_runs_url: `${url}/check-runs`,
    head_commit: {
      id: input.commit.sha,
      tree_id: input.commit.tree,
      message: input.commit.message,
      timestamp: input.commit.committer.date,
      author: { name: input.commit.author.name, email: input.commit.author.email },
      committer: { name: input.commit.committer.name, email: input.commit.committer.email },
    },
  };
}
