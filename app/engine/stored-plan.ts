import { z } from "zod";
import { Role } from "../../src/config/loom-config.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import type { PlanRecord } from "../store/store.ts";

/**
 * What one plan row holds: the orchestrator's state plus the repository settings the app needs to
 * carry out effects without re-reading `.github/loom.yml` (refreshed on every pull request event).
 */
export const RepoSettings = z.object({
  workflowFile: z.string(),
  labelPrefix: z.string(),
  minimumRole: Role,
  branchCleanup: z.boolean(),
  defaultBranch: z.string(),
});
export type RepoSettings = z.infer<typeof RepoSettings>;

const PlanStateShape = z
  .object({
    plan: z.object({ id: z.string(), blobSha: z.string(), stages: z.array(z.unknown()) }).loose(),
    pr: z.object({ number: z.number(), headSha: z.string(), headRef: z.string() }).loose(),
    stages: z.record(z.string(), z.unknown()),
    order: z.array(z.string()),
    closed: z.boolean(),
  })
  .loose();

export const StoredPlan = z.object({
  format: z.literal(1),
  // The state is written only by `commitPlan` from the reducer's output; its shape is checked
  // here, its full typing is the reducer's contract.
  state: PlanStateShape.transform((value) => value as unknown as PlanState),
  repo: RepoSettings,
});
export type StoredPlan = { format: 1; state: PlanState; repo: RepoSettings };

/** Error for a row that is not what loom writes: a bug or a foreign writer, never user input. */
export class CorruptPlanRowError extends Error {
  override readonly name = "CorruptPlanRowError";
}

/** The parts a plan is stored in besides its core: the plan spec, and one per stage. */
const PLAN_PART = "plan";
const STAGE_PART = "stage:";

/** A plan row written split (format 2): the state without its plan spec and stages, kept as parts. */
const SplitCore = z.object({ format: z.literal(2), state: z.object({}).loose(), repo: z.unknown() });

/** What `commitPlan` writes for a plan: its core, and the parts that differ from what is stored. */
export type SplitPlan = { core: unknown; setParts: Record<string, string>; dropParts: string[] };

/**
 * Splits a plan for the store (issue 13: incremental state): the core (format 2: the state without
 * its plan spec and stages) is written on every commit, each part only when its JSON differs from
 * the stored one. Parts of a row written whole (format 1, by a loom before the split) are stale and
 * are all written again; parts of stages gone from the plan are dropped.
 */
export function splitStoredPlan(
  stored: StoredPlan,
  record: Pick<PlanRecord, "state" | "parts"> | null,
): SplitPlan {
  const { plan, stages, ...rest } = stored.state;
  const current =
    record !== null && SplitCore.safeParse(record.state).success ? record.parts : new Map<string, string>();
  const wanted = new Map<string, string>([[PLAN_PART, JSON.stringify(plan)]]);
  for (const [id, stage] of Object.entries(stages)) wanted.set(`${STAGE_PART}${id}`, JSON.stringify(stage));
  const setParts: Record<string, string> = {};
  for (const [name, text] of wanted) if (current.get(name) !== text) setParts[name] = text;
  const dropParts = [...(record?.parts.keys() ?? [])].filter((name) => !wanted.has(name));
  return { core: { format: 2, state: rest, repo: stored.repo }, setParts, dropParts };
}

function readPart(planKey: string, parts: ReadonlyMap<string, string>, name: string): unknown {
  const text = parts.get(name);
  if (text === undefined) throw new CorruptPlanRowError(`plan row ${planKey} has no part ${name}`);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CorruptPlanRowError(`plan row ${planKey} has a part ${name} that is not JSON`, {
      cause: error,
    });
  }
}

/** The whole stored plan of a row: its core with its parts put back, or the row itself when written whole. */
function joinParts(record: Pick<PlanRecord, "planKey" | "state" | "parts">): unknown {
  const split = SplitCore.safeParse(record.state);
  if (!split.success) return record.state;
  const { state, repo } = split.data;
  // The reducer keeps one stage per id of `order`, in that order: each must have its part (a
  // missing one is a corrupt row, never a plan without that stage); a part of no stage is stale.
  const order = Array.isArray(state["order"]) ? (state["order"] as unknown[]) : [];
  const stages: Record<string, unknown> = {};
  // An order that is not a list of ids fails the check of the joined plan.
  for (const id of order)
    if (typeof id === "string") stages[id] = readPart(record.planKey, record.parts, `${STAGE_PART}${id}`);
  return {
    format: 1,
    state: { ...state, plan: readPart(record.planKey, record.parts, PLAN_PART), stages },
    repo,
  };
}

/** Reads a store record's plan (`readStoredPlan`, or a reader that remembers what it read). */
export type StoredPlanReader = (record: PlanRecord) => StoredPlan;

/**
 * `readStoredPlan` remembered per record for one piece of work (a delivery): a record is read,
 * joined and checked once however many of its questions are asked. Callers must not change what
 * it returns.
 */
export function createStoredPlanReader(): StoredPlanReader {
  const read = new Map<PlanRecord, StoredPlan>();
  return (record) => {
    const known = read.get(record);
    if (known !== undefined) return known;
    const stored = readStoredPlan(record);
    read.set(record, stored);
    return stored;
  };
}

/** The plan a store record holds, checked: joined from its parts when it was written split. */
export function readStoredPlan(record: Pick<PlanRecord, "planKey" | "state" | "parts">): StoredPlan {
  const parsed = StoredPlan.safeParse(joinParts(record));
  if (!parsed.success) {
    throw new CorruptPlanRowError(`plan row ${record.planKey} is not a loom plan`, { cause: parsed.error });
  }
  return parsed.data;
}
