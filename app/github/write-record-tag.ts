import { z } from "zod";
import { countCall, readStatus, toEffectError } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";

const CreatedTag = z.object({ sha: z.string().regex(/^[0-9a-f]{40,64}$/) });

/** A record loom writes for a run job to read with its read-only token. */
export type RecordTag = {
  /** The tag object's name (`loom-continue-<stage>`, `loom-amend-<stage>`). */
  tag: string;
  message: string;
  /** The commit the tag object points at. */
  object: string;
  /** The ref without `refs/` (`loom/continue/<branch>`, `loom/amend/<branch>`). */
  ref: string;
  /** What the record is, for errors ("the instructions of a"). */
  what: string;
  /** The name its requests are counted under. */
  call: string;
};

/**
 * An annotated tag object holding `message`, and the ref `refs/<ref>` pointed at it: outside
 * branches and tags, so no workflow runs and no push webhook fires for it.
 *
 * Requests: 2 writes (tag, ref) the first time; 3 later (the ref exists: its creation is refused,
 * then it is moved with `force`). Idempotent: a claim after a failed one writes a new tag and
 * points the ref at it; a 5xx or network failure is retryable.
 */
export async function writeRecordTag(ctx: EffectContext, record: RecordTag): Promise<void> {
  const { owner, repo } = ctx;
  let tagSha: string;
  countCall(ctx.calls, record.call);
  try {
    const { data } = await ctx.octokit.rest.git.createTag({
      owner,
      repo,
      tag: record.tag,
      message: record.message,
      object: record.object,
      type: "commit",
    });
    tagSha = CreatedTag.parse(data).sha;
  } catch (error) {
    throw toEffectError(`recording ${record.what}`, error);
  }
  countCall(ctx.calls, record.call);
  try {
    await ctx.octokit.rest.git.createRef({ owner, repo, ref: `refs/${record.ref}`, sha: tagSha });
    return;
  } catch (error) {
    if (readStatus(error) !== 422) throw toEffectError(`recording ${record.what}`, error);
  }
  countCall(ctx.calls, record.call);
  try {
    await ctx.octokit.rest.git.updateRef({ owner, repo, ref: record.ref, sha: tagSha, force: true });
  } catch (error) {
    throw toEffectError(`recording ${record.what}`, error);
  }
}
