/** The plan id: the file name without its directory and its last extension (`doc/PLAN-x.md` → `PLAN-x`). */
export function derivePlanId(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}
