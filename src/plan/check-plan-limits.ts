import type { Diagnostic, Plan } from "./plan.ts";

/**
 * The plan files loom runs in one pull request, at most `max`: plans it already runs keep running,
 * newcomers fill what is left in file order. `refused` are the rest (a pull request full of plan
 * files must not buy a check run, a parse and a run per file).
 */
export function limitPlanFiles<T extends { path: string }>(
  files: readonly T[],
  running: ReadonlySet<string>,
  max: number,
): { kept: T[]; refused: T[] } {
  const first = files.filter((file) => running.has(file.path));
  const rest = files.filter((file) => !running.has(file.path));
  const ordered = [...first, ...rest];
  return { kept: ordered.slice(0, max), refused: ordered.slice(max) };
}

/** The message for the plan files over `max_plans_per_pull`, reported once, on the first of them. */
export function describeRefusedPlans(refused: readonly { path: string }[], max: number): string {
  const names = refused.map((file) => file.path);
  const shown = names.slice(0, 5).join(", ") + (names.length > 5 ? ` and ${names.length - 5} more` : "");
  return `this pull request has more plan files than .github/loom.yml's max_plans_per_pull (${max}): loom does not run ${shown}; split them over several pull requests or raise the limit`;
}

/**
 * A plan with more stages than `.github/loom.yml`'s `max_stages_per_plan`: an error at the first
 * stage over the limit (found by its `id:` line in `text`; line 1 when it cannot be found).
 */
export function checkStageLimit(plan: Pick<Plan, "stages">, text: string, max: number): Diagnostic | null {
  if (plan.stages.length <= max) return null;
  const over = plan.stages[max];
  const message = `the plan has ${plan.stages.length} stages, more than .github/loom.yml's max_stages_per_plan (${max}): split it into several plans or raise the limit`;
  const line = over === undefined ? 0 : findIdLine(text, over.id);
  return { message, line: line > 0 ? line : 1, column: 1, ...(over ? { stage: over.id } : {}) };
}

function findIdLine(text: string, id: string): number {
  const lines = text.split("\n");
  const index = lines.findIndex((line) => {
    const match = /^\s*(?:-\s+)?id:\s*(["']?)(.+?)\1\s*$/.exec(line);
    return match?.[2] === id;
  });
  return index + 1;
}
