import { buildStateGraph } from "./schedule.ts";
import { describeAffectingPath, findAffectingPath } from "./find-affecting-path.ts";
import type { AffectedStage, PlanState } from "./state.ts";

/** A stage a re-run can take up: completed, merged, still in the plan, not running again already. */
function isRerunnableDone(state: PlanState, id: string): boolean {
  const stage = state.stages[id];
  return stage !== undefined && !stage.removed && stage.status === "completed" && stage.merged;
}

/**
 * The completed stages a change of `changed` (null: not known) affects, in plan order: those whose
 * `files` globs (or, without them, the paths their merge changed) it touches, `cause` naming the
 * change (`the push of 1a2b3c4`), and every completed stage downstream of one of them.
 */
export { isRerunnableDone };

export function findAffectedStages(
  state: PlanState,
  changed: readonly string[] | null,
  cause: string,
): AffectedStage[] {
  const why = new Map<string, string>();
  for (const id of state.order) {
    if (!isRerunnableDone(state, id)) continue;
    const affecting = findAffectingPath(state, id, changed);
    if (affecting !== null) why.set(id, `${cause} changed ${describeAffectingPath(affecting)}`);
  }
  return addDownstream(state, why);
}

/**
 * `direct` (stage id → why, each completed and merged) and every completed, merged stage
 * downstream of one of them (`downstream of <stage>`), in plan order.
 */
export function addDownstream(state: PlanState, direct: ReadonlyMap<string, string>): AffectedStage[] {
  const why = new Map(direct);
  if (why.size === 0) return [];
  const graph = buildStateGraph(state);
  const queue = [...why.keys()];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const dependent of graph.dependents.get(next) ?? []) {
      if (why.has(dependent) || !isRerunnableDone(state, dependent)) continue;
      why.set(dependent, `downstream of \`${next}\``);
      queue.push(dependent);
    }
  }
  return state.order.flatMap((id) => {
    const text = why.get(id);
    return text === undefined ? [] : [{ id, why: text }];
  });
}
