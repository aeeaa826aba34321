import { z } from "zod";

/**
 * The fields of a workflow run (REST or `workflow_run` webhook) that tell who started it and how.
 * GitHub's run object carries no `inputs`: the dispatch key reaches the run's title through the
 * caller workflow's `run-name: loom ${{ inputs.key }}`, read from the default branch.
 */
export const RunIdentity = z.object({
  id: z.number().int(),
  name: z.string().nullable().optional(),
  display_title: z.string().default(""),
  event: z.string().optional(),
  path: z.string().optional(),
  head_branch: z.string().nullable().optional(),
  created_at: z.string().optional(),
  actor: z.object({ login: z.string() }).nullable().optional(),
  triggering_actor: z.object({ login: z.string() }).nullable().optional(),
});
export type RunIdentity = z.infer<typeof RunIdentity>;

export type ExpectedDispatch = {
  /** The caller workflow file loom dispatches (`loom.yml`). */
  workflowFile: string;
  defaultBranch: string;
  /** loom's bot login; null when unknown (then no run found by title is loom's). */
  botLogin: string | null;
  /** The dispatch key the run's title must carry. */
  key: string;
  /** When loom dispatched (ms, loom's clock). */
  dispatchedAt: number;
};

/**
 * How far a run's `created_at` (GitHub's clock) may lie before loom's dispatch time (loom's clock):
 * room for clock skew, not for an old run of the same key.
 */
export const DISPATCH_SKEW_MS = 10 * 60_000;

/**
 * True when `title` (the caller's `run-name`, which contains `${{ inputs.key }}`) carries `key` as
 * a whole word: `key` must not be followed or preceded by more key characters, so `…:1` never
 * matches `…:10`.
 */
export function hasRunKey(title: string, key: string): boolean {
  let from = 0;
  for (;;) {
    const at = title.indexOf(key, from);
    if (at < 0) return false;
    const before = title[at - 1];
    const after = title[at + key.length];
    if (
      (before === undefined || !/[\w:./-]/.test(before)) &&
      (after === undefined || !/[\w:./-]/.test(after))
    ) {
      return true;
    }
    from = at + 1;
  }
}

/**
 * Is this run one loom dispatched with `key`, when GitHub gave loom no run id to compare? Only a
 * `workflow_dispatch` run of the configured caller workflow on the default branch, started and
 * triggered by loom's bot (no person can start a run as the App), created after the dispatch, whose
 * title carries the key. A run titled `loom <key>` by anyone else, of another workflow or event,
 * is not. Returns why not, or null.
 */
export function judgeRunIdentity(run: RunIdentity, expected: ExpectedDispatch): string | null {
  if (!hasRunKey(run.display_title, expected.key) && !hasRunKey(run.name ?? "", expected.key))
    return "its title does not carry the dispatch key";
  if (run.event !== "workflow_dispatch") return `it was started by ${run.event ?? "an unknown event"}`;
  // GitHub's `path` is `.github/workflows/<file>`, with `@<ref>` for some runs.
  const path = (run.path ?? "").replace(/@.*$/, "");
  if (path !== `.github/workflows/${expected.workflowFile}`)
    return `it is a run of ${path || "an unknown workflow"}, not ${expected.workflowFile}`;
  if (run.head_branch !== expected.defaultBranch)
    return `it ran on ${run.head_branch ?? "no branch"}, not ${expected.defaultBranch}`;
  const actor = run.actor?.login ?? null;
  const triggering = run.triggering_actor?.login ?? actor;
  if (expected.botLogin === null || actor !== expected.botLogin || triggering !== expected.botLogin)
    return `it was started by ${triggering ?? "someone unknown"}, not loom`;
  const created = run.created_at === undefined ? Number.NaN : Date.parse(run.created_at);
  if (Number.isNaN(created) || created < expected.dispatchedAt - DISPATCH_SKEW_MS)
    return "it was created before loom dispatched";
  return null;
}
