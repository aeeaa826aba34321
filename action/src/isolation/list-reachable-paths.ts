import { realpathSync } from "node:fs";
import path from "node:path";

/**
 * What the session user must be able to reach: every absolute folder on PATH (its tools, node for
 * loom's hooks and the checks) and each given program or folder, also where its links lead (an npm
 * global `claude` is a link into `lib/node_modules`). A bare program name is found through PATH.
 */
export function listReachablePaths(pathVariable: string | undefined, targets: readonly string[]): string[] {
  const dirs = (pathVariable ?? "").split(":").filter((dir) => path.isAbsolute(dir));
  const found = new Set<string>(dirs);
  for (const target of targets) {
    if (!path.isAbsolute(target)) continue; // a bare name lives in a PATH folder, listed above
    found.add(target);
    const real = realpathOrNull(target);
    if (real !== null) found.add(real);
  }
  return [...found];
}

function realpathOrNull(target: string): string | null {
  try {
    return realpathSync(target);
  } catch {
    return null; // missing: starting it fails later with a clear error
  }
}
