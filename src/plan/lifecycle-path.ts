/** The reference CLI's lifecycle prefixes of a plan file name (`IN_PROGRESS-PLAN-x.md`, `DONE-PLAN-x.md`). */
export const PLAN_FILE_PREFIXES = ["IN_PROGRESS-", "DONE-"] as const;
export type PlanFilePrefix = (typeof PLAN_FILE_PREFIXES)[number];

const LIFECYCLE = /^(?:IN_PROGRESS-|DONE-)/;

/** `doc/plans/IN_PROGRESS-PLAN-x.md` → `doc/plans/PLAN-x.md`: the plan's file without its lifecycle prefix. */
export function stripLifecyclePrefix(path: string): string {
  const slash = path.lastIndexOf("/");
  return path.slice(0, slash + 1) + path.slice(slash + 1).replace(LIFECYCLE, "");
}

/** `path` with its file name prefixed `prefix` (an earlier lifecycle prefix replaced). */
export function withLifecyclePrefix(path: string, prefix: PlanFilePrefix): string {
  const bare = stripLifecyclePrefix(path);
  const slash = bare.lastIndexOf("/");
  return `${bare.slice(0, slash + 1)}${prefix}${bare.slice(slash + 1)}`;
}

/** Every name the plan file at `path` may have during its life, `path` first. */
export function listLifecycleNames(path: string): string[] {
  return [
    ...new Set([
      path,
      ...PLAN_FILE_PREFIXES.map((p) => withLifecyclePrefix(path, p)),
      stripLifecyclePrefix(path),
    ]),
  ];
}
