import { z } from "zod";
import type { Effect } from "../../src/orchestrator/effects.ts";
import type { OrchestratorEvent } from "../../src/orchestrator/events.ts";
import { countCall, readErrorMessage, readStatus } from "./effect-context.ts";
import type { EffectContext } from "./effect-context.ts";

type EnsureLabel = Extract<Effect, { type: "ensureLabel" }>;

/** GitHub's 422 for a label name the repository already has (names are unique ignoring case). */
const AlreadyExists = z.object({
  response: z.object({
    data: z.object({ errors: z.array(z.object({ code: z.string() }).loose()) }).loose(),
  }),
});

function isAlreadyExists(error: unknown): boolean {
  if (readStatus(error) !== 422) return false;
  const parsed = AlreadyExists.safeParse(error);
  return parsed.success && parsed.data.response.data.errors.some((e) => e.code === "already_exists");
}

/**
 * Creates one of loom's labels (`POST /repos/{o}/{r}/labels`), so people can pick it in GitHub's
 * label menu, which offers only labels that exist. A label that exists already (422
 * `already_exists`) is success. Remembered per repository in the process cache, so later plans do
 * not ask again. Labels are a convenience: a failure is logged, never retried or thrown (a retried
 * effect would hold the plan's dispatches and merges back behind it), and people can still
 * create the label by hand.
 */
export async function ensureLabel(ctx: EffectContext, effect: EnsureLabel): Promise<OrchestratorEvent[]> {
  const { name, color, description } = effect.label;
  const done: OrchestratorEvent[] = [{ type: "label.ensured", at: ctx.now(), name }];
  const cacheKey = `label:${ctx.owner}/${ctx.repo}:${name.toLowerCase()}`;
  if (ctx.cache?.written.get(cacheKey) !== undefined) return done;
  countCall(ctx.calls, effect.type);
  try {
    await ctx.octokit.rest.issues.createLabel({
      owner: ctx.owner,
      repo: ctx.repo,
      name,
      color,
      description,
      request: { retries: 0 },
    });
    ctx.log.info({ label: name }, "label created");
  } catch (error) {
    if (!isAlreadyExists(error)) {
      ctx.log.warn(
        { label: name, status: readStatus(error), reason: readErrorMessage(error) },
        "could not create loom's label; it can be created by hand",
      );
      return done;
    }
  }
  ctx.cache?.written.set(cacheKey, "exists");
  return done;
}
