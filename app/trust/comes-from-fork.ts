import type { ForkInfo } from "../../src/orchestrator/events.ts";

/** A repository as `pull_request.head.repo` and `repository` carry it (`id` when GitHub sends it). */
export type RepoIdentity = { full_name: string; id?: number | undefined };

/**
 * Where the pull request's head lives, read from `pull_request.head.repo`, never assumed: null when
 * it is the base repository itself; otherwise the fork, with `repo: null` once the fork was deleted
 * (GitHub then sends `head.repo: null`: it is still a fork, and no new head of it runs). Decided by
 * repository id when both are known (a renamed repository keeps its id), else by full name.
 */
export function comesFromFork(head: RepoIdentity | null, base: RepoIdentity): ForkInfo | null {
  if (head === null) return { repo: null };
  const same =
    head.id !== undefined && base.id !== undefined
      ? head.id === base.id
      : head.full_name.toLowerCase() === base.full_name.toLowerCase();
  return same ? null : { repo: head.full_name };
}
