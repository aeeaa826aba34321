import type { Effect } from "../../src/orchestrator/effects.ts";
import type { MergeOutcome, OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { isPlanPath } from "../../src/plan/discover-plan-paths.ts";
import { readBranchHead } from "./create-branch.ts";
import { countCall, EffectError, readErrorMessage, readStatus, toEffectError } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";

type MergeBranch = Extract<Effect, { type: "mergeBranch" }>;

/**
 * Claims of one merge effect that may end unanswered (5xx, timeout, dropped connection) and be
 * tried again by the outbox (after 5 s, 10 s, 20 s); the last one reports an error instead, so the
 * stage says why on its check run. Below the outbox's own limit of 5 claims.
 */
export const MERGE_TRIES = 4;

function finished(
  ctx: EffectContext,
  effect: MergeBranch,
  outcome: MergeOutcome,
  detail: string,
  sha?: string,
  parent?: string,
  answer?: { plansUntouched: boolean; tree: string | undefined; changedPaths: string[] | null },
): OrchestratorEvent[] {
  ctx.log.info({ stage: effect.stageId, outcome, sha }, "merge finished");
  return [
    {
      type: "merge.finished",
      at: ctx.now(),
      stageId: effect.stageId,
      outcome,
      ...(sha ? { sha } : {}),
      ...(sha && parent
        ? {
            parent,
            ...(answer?.plansUntouched === true ? { plansUntouched: true } : {}),
            ...(answer?.tree === undefined ? {} : { tree: answer.tree }),
            ...(answer?.changedPaths == null ? {} : { changedPaths: answer.changedPaths }),
          }
        : {}),
      detail,
    },
  ];
}

/**
 * GitHub lists at most this many files in a commit's answer (more come on further pages): a list
 * this long may not be all of them.
 */
const COMMIT_FILES_PAGE = 300;

/**
 * True when the merge answer lists every file the merge changed against its first parent and none
 * is a plan file (also not as a rename's old name). GitHub's `commit` schema makes `files`
 * optional: without it, or with a full page of them, nothing is known.
 */
function readPlansUntouched(answer: unknown): boolean {
  const files = (answer as { files?: unknown }).files;
  if (!Array.isArray(files) || files.length >= COMMIT_FILES_PAGE) return false;
  return files.every((file: unknown) => {
    const { filename, previous_filename: previous } = (file ?? {}) as {
      filename?: unknown;
      previous_filename?: unknown;
    };
    if (typeof filename !== "string" || isPlanPath(filename)) return false;
    return typeof previous !== "string" || !isPlanPath(previous);
  });
}

/**
 * Every path the merge changed against its first parent (a rename's old and new names), from
 * GitHub's answer; null when the answer has no list or a full page (more may exist).
 */
function readChangedPaths(answer: unknown): string[] | null {
  const files = (answer as { files?: unknown }).files;
  if (!Array.isArray(files) || files.length >= COMMIT_FILES_PAGE) return null;
  const paths: string[] = [];
  for (const file of files as unknown[]) {
    const { filename, previous_filename: previous } = (file ?? {}) as {
      filename?: unknown;
      previous_filename?: unknown;
    };
    if (typeof filename !== "string") return null;
    paths.push(filename);
    if (typeof previous === "string") paths.push(previous);
  }
  return paths;
}

/** The merge commit's tree SHA from GitHub's answer (`commit.tree.sha`), read without trusting the shape. */
function readTree(answer: unknown): string | undefined {
  const tree = (answer as { commit?: { tree?: { sha?: unknown } } }).commit?.tree?.sha;
  return typeof tree === "string" && /^[0-9a-f]{40}$/.test(tree) ? tree : undefined;
}

/** True when `sha` is the base head or one of its ancestors (compare API: `ahead` or `identical`). */
async function isOnBase(
  ctx: EffectContext,
  effect: MergeBranch,
  sha: string,
  head: string,
): Promise<boolean> {
  if (head === sha) return true;
  countCall(ctx.calls, effect.type);
  try {
    const { data } = await ctx.octokit.rest.repos.compareCommitsWithBasehead({
      owner: ctx.owner,
      repo: ctx.repo,
      basehead: `${sha}...${head}`,
      per_page: 1,
    });
    return data.status === "ahead" || data.status === "identical";
  } catch (error) {
    throw toEffectError(`comparing ${sha} with ${effect.base}`, error);
  }
}

async function readParents(ctx: EffectContext, effect: MergeBranch, sha: string): Promise<string[]> {
  countCall(ctx.calls, effect.type);
  try {
    const { data } = await ctx.octokit.rest.repos.getCommit({ owner: ctx.owner, repo: ctx.repo, ref: sha });
    return data.parents.map((parent) => parent.sha);
  } catch (error) {
    throw toEffectError(`reading commit ${sha}`, error);
  }
}

/**
 * A merge whose answer never came (5xx, timeout, dropped connection): GitHub may or may not have
 * merged. The repository decides: when the merge point contains what was to be merged, it is
 * merged (its head is recorded); otherwise the merge is tried again by the outbox, and reported as
 * an error only on the last try.
 */
async function settleUnanswered(
  ctx: EffectContext,
  effect: MergeBranch,
  head: string,
  why: string,
): Promise<OrchestratorEvent[]> {
  const base = await readBranchHead(ctx, effect.type, effect.base);
  if (base === null) return finished(ctx, effect, "error", `${effect.base} is gone (${why})`);
  const sha = effect.sha ?? (await readBranchHead(ctx, effect.type, effect.head));
  if (sha !== null && (await isOnBase(ctx, effect, sha, base))) {
    ctx.log.warn({ stage: effect.stageId, why }, "merge answer lost; the merge point contains the stage");
    const detail = `merged ${head} into ${effect.base} (GitHub's answer was lost: ${why})`;
    // The head is recorded as loom's merge only when it is that merge (second parent `sha`).
    const own = (await readParents(ctx, effect, base))[1] === sha;
    return finished(ctx, effect, "merged", detail, own ? base : undefined);
  }
  if ((ctx.attempt ?? 1) >= MERGE_TRIES) {
    return finished(ctx, effect, "error", `GitHub did not merge after ${MERGE_TRIES} tries (${why})`);
  }
  throw new EffectError(`merging ${head} into ${effect.base}: not merged (${why}); trying again`, {
    status: null,
    retryable: true,
  });
}

/**
 * Merges the stage into the merge point with `POST /merges`, never retried blindly.
 *
 * With `effect.sha` (the commit the stage's checks ran on) the stage branch must still point at it,
 * else nothing is merged (`branch-moved`: a push after the checks); the merge takes that SHA, not
 * the branch name, so nothing pushed meanwhile rides along. GitHub's answer: 201 → merged;
 * 204 → nothing to merge; 409 → conflict; 5xx, timeout or a dropped connection → the repository is
 * read to decide (`settleUnanswered`); any other answer → error with GitHub's message.
 */
export async function mergeBranch(ctx: EffectContext, effect: MergeBranch): Promise<OrchestratorEvent[]> {
  if (effect.sha !== undefined) {
    const branchHead = await readBranchHead(ctx, effect.type, effect.head);
    if (branchHead !== effect.sha) {
      const now = branchHead === null ? "was deleted" : `moved to ${branchHead.slice(0, 7)}`;
      const events = finished(
        ctx,
        effect,
        "branch-moved",
        `the stage branch ${effect.head} ${now} after the checks ran on ${effect.sha.slice(0, 7)}`,
      );
      return branchHead === null ? events.map((event) => ({ ...event, branchGone: true as const })) : events;
    }
  }
  const head = effect.sha ?? effect.head;
  countCall(ctx.calls, effect.type);
  let response;
  try {
    response = await ctx.octokit.rest.repos.merge({
      owner: ctx.owner,
      repo: ctx.repo,
      base: effect.base,
      head,
      commit_message: effect.message,
      request: { retries: 0 },
    });
  } catch (error) {
    const status = readStatus(error);
    const message = readErrorMessage(error);
    if (status === 409) return finished(ctx, effect, "conflict", `merge conflict: ${message}`);
    if (status === null || status >= 500) {
      return settleUnanswered(ctx, effect, head, `${status ?? "no answer"}: ${message}`);
    }
    return finished(ctx, effect, "error", `GitHub refused the merge (${status}): ${message}`);
  }
  if ((response.status as number) === 204) {
    return finished(ctx, effect, "nothing-to-merge", `${effect.base} already contains ${head}`);
  }
  // 201: GitHub moved the merge point to this merge commit, made on the head it had then (its first
  // parent). Read without trusting the shape: nothing may fail once the merge is done.
  const parent = (response.data as { parents?: { sha?: unknown }[] }).parents?.[0]?.sha;
  return finished(
    ctx,
    effect,
    "merged",
    `merged ${effect.head} into ${effect.base}`,
    response.data.sha,
    typeof parent === "string" ? parent : undefined,
    {
      plansUntouched: readPlansUntouched(response.data),
      tree: readTree(response.data),
      changedPaths: readChangedPaths(response.data),
    },
  );
}
