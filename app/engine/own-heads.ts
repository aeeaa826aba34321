import { isStalePush } from "../../src/orchestrator/move-head.ts";
import type { PlanRecord } from "../store/store.ts";
import type { StoredPlanReader } from "./stored-plan.ts";

/*
 * Whether the push of a pull request's head is a commit loom made itself, and how much of the pull
 * request it must read again for it (issue 13: loom's own merges and renames are not new plans).
 */

/**
 * The push is a commit loom made itself (a stage's merge, the plan file's rename) for every running
 * plan of the pull request (its SHA is one of their `loomHeads`, from loom's own merge answers).
 * With no plan file besides the running ones, each at the blob its plan runs (the file list's
 * `sha`), nothing else is read again: the config, the permission and the plan text would cost 3 or
 * more requests per merge for nothing. A new plan file, or a running plan's file that changed,
 * takes the full path (and, at loom's head, waits for a person's approval).
 */
export function isOwnHead(
  known: PlanRecord[],
  stored: StoredPlanReader,
  sha: string,
  files: { file: string; path: string }[],
  blobs: ReadonlyMap<string, string | null>,
): boolean {
  const active = known.filter((record) => record.active);
  return (
    active.length > 0 &&
    // A plan file that is not running yet came in with this head, or a running plan's file changed
    // by loom's commit (a stage's merge): it is read (and waits for a person: a first sighting, or
    // `plan.changed` with `untrusted`).
    files.every(({ file, path }) => {
      const record = active.find((candidate) => candidate.key.planPath === path);
      return record !== undefined && blobs.get(file) === stored(record).state.plan.blobSha;
    }) &&
    active.every((record) => (stored(record).state.loomHeads ?? []).includes(sha))
  );
}

/**
 * The push of a commit loom made itself and already moved every running plan to (from its merge or
 * rename answer), which changed no plan file (`plansUntouched`): the plan files are the ones loom
 * read before, so not even the file list is read (one request less per merge). A pull request
 * without a running plan, or a plan not on this head yet, takes the file list.
 */
export function isUntouchedOwnHead(known: PlanRecord[], stored: StoredPlanReader, sha: string): boolean {
  const active = known.filter((record) => record.active);
  return (
    active.length > 0 &&
    active.every((record) => {
      const { pr } = stored(record).state;
      return pr.headSha === sha && pr.plansUntouched === true;
    })
  );
}

/**
 * A late webhook of loom's own earlier commit (a merge, a rename): every running plan of the pull
 * request already moved past it, to a later commit of loom's own that contains it, whose own
 * webhook reads the file list. Nothing to read or do.
 */
export function isLateOwnPush(
  known: PlanRecord[],
  stored: StoredPlanReader,
  sha: string,
  before: string | null,
): boolean {
  const active = known.filter((record) => record.active);
  return active.length > 0 && active.every((record) => isStalePush(stored(record).state, sha, before));
}
