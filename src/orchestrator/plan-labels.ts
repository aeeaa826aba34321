import { DEFAULT_LABEL_PREFIX } from "../commands/parse-label.ts";
import type { Effect } from "./effects.ts";
import type { PlanState } from "./state.ts";
import { getKeyPrefix } from "./step-context.ts";

/** A repository label as loom creates it. */
export type LabelSpec = { name: string; color: string; description: string };

/** GitHub refuses label names over 50 characters and descriptions over 100. */
const NAME_LIMIT = 50;
const DESCRIPTION_LIMIT = 100;

const COLORS = { hold: "fbca04", skip: "c5def5", block: "d93f0b" } as const;

function describe(text: string): string {
  return text.length <= DESCRIPTION_LIMIT ? text : `${text.slice(0, DESCRIPTION_LIMIT - 1)}…`;
}

/**
 * The labels loom creates for this plan: `<prefix>:hold`, then, with `stage_labels`,
 * `<prefix>:skip:<stage>` and `<prefix>:block:<stage>` for every stage still in the plan. Names
 * GitHub would refuse as too long (a long `label_prefix`) are left out. Without `stage_labels` the
 * per-stage labels still steer loom when someone creates them; they are not made for every stage
 * because they cost two requests per stage and stay in the repository's label list (shared with
 * its issues) long after the plan.
 */
export function listPlanLabels(state: PlanState): LabelSpec[] {
  const prefix = state.settings.labelPrefix ?? DEFAULT_LABEL_PREFIX;
  const labels: LabelSpec[] = [
    {
      name: `${prefix}:hold`,
      color: COLORS.hold,
      description: "loom: start no new stage sessions on this pull request until removed",
    },
  ];
  for (const id of state.settings.stageLabels === true ? state.order : []) {
    const stage = state.stages[id];
    if (!stage || stage.removed) continue;
    labels.push(
      {
        name: `${prefix}:skip:${id}`,
        color: COLORS.skip,
        description: describe(`loom: skip stage ${id} — its dependents treat it as done`),
      },
      {
        name: `${prefix}:block:${id}`,
        color: COLORS.block,
        description: describe(`loom: hold stage ${id} back until this label is removed`),
      },
    );
  }
  return labels.filter((label) => label.name.length <= NAME_LIMIT);
}

/**
 * Labels cost API requests, so only plans that may run get them: a plan from a fork or an outside
 * author waits for an approval first (cheap input never buys work).
 */
function mayCreateLabels(state: PlanState): boolean {
  return !state.closed && (state.trusted || state.approvedSha !== null);
}

function firstMissing(state: PlanState | null): LabelSpec | null {
  if (state === null || !mayCreateLabels(state)) return null;
  const done = new Set(state.labelsEnsured ?? []);
  return listPlanLabels(state).find((label) => !done.has(label.name)) ?? null;
}

/**
 * `ensureLabel` for the first label the plan needs that loom has not dealt with yet, decided only
 * when that changed (the plan appeared or was approved, the last label was dealt with, the stages
 * changed). One label at a time, after the step's other effects: the outbox runs a plan's effects
 * in order, so a dispatch or merge decided meanwhile waits for at most one label request.
 */
export function computeLabelEffects(before: PlanState | null, after: PlanState): Effect[] {
  const next = firstMissing(after);
  if (next === null || next.name === firstMissing(before)?.name) return [];
  return [{ type: "ensureLabel", key: `${getKeyPrefix(after)}:@label:${next.name}`, label: next }];
}

/** The app dealt with `name` (created it, found it there, or gave up on it): the next one may go. */
export function recordLabelEnsured(state: PlanState, name: string): void {
  const done = state.labelsEnsured ?? [];
  if (!done.includes(name)) state.labelsEnsured = [...done, name];
}
