import type { EmulatorState, RepoRecord } from "./emulator-state.ts";
import { takeId } from "./emulator-state.ts";
import type { Json, JsonContext } from "./user-json.ts";

/**
 * Labels as repository objects, the way GitHub keeps them: a pull request can carry only a label
 * its repository has. Kept beside the emulator's state (one table per state) rather than in it.
 */

export type LabelRecord = {
  repo: string;
  id: number;
  name: string;
  color: string;
  description: string | null;
};

const tables = new WeakMap<EmulatorState, LabelRecord[]>();

/** Every repository label the emulator knows (all repositories). */
export function repoLabels(state: EmulatorState): LabelRecord[] {
  let table = tables.get(state);
  if (!table) {
    table = [];
    tables.set(state, table);
  }
  return table;
}

/** GitHub: label names are unique in a repository ignoring letter case. */
export function findLabel(state: EmulatorState, repo: RepoRecord, name: string): LabelRecord | undefined {
  const wanted = name.toLowerCase();
  return repoLabels(state).find((l) => l.repo === repo.fullName && l.name.toLowerCase() === wanted);
}

export type LabelInput = { name: string; color?: string | undefined; description?: string | undefined };

/** What GitHub says about a label it refuses: the `errors[]` entry of its 422. */
export type LabelRefusal = { resource: "Label"; code: "already_exists" | "invalid"; field: string };

/**
 * GitHub's rules for a new label, as its 422 answers show them: names at most 50 characters and
 * unique ignoring case, descriptions at most 100, colours six hex digits (`#` not allowed).
 */
export function checkLabel(state: EmulatorState, repo: RepoRecord, input: LabelInput): LabelRefusal | null {
  const refuse = (code: LabelRefusal["code"], field: string): LabelRefusal => ({
    resource: "Label",
    code,
    field,
  });
  if (input.name.trim() === "" || input.name.length > 50) return refuse("invalid", "name");
  if (input.color !== undefined && !/^[0-9a-fA-F]{6}$/.test(input.color)) return refuse("invalid", "color");
  if (input.description !== undefined && input.description.length > 100)
    return refuse("invalid", "description");
  if (findLabel(state, repo, input.name)) return refuse("already_exists", "name");
  return null;
}

export function createLabelRecord(state: EmulatorState, repo: RepoRecord, input: LabelInput): LabelRecord {
  const record: LabelRecord = {
    repo: repo.fullName,
    id: takeId(state),
    name: input.name,
    color: (input.color ?? "ededed").toLowerCase(),
    description: input.description ?? null,
  };
  repoLabels(state).push(record);
  return record;
}

export function repoLabelJson(ctx: JsonContext, label: LabelRecord): Json {
  return {
    id: label.id,
    node_id: `LA_${label.id}`,
    url: `${ctx.url}/repos/${label.repo}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    color: label.color,
    default: false,
    description: label.description,
  };
}
