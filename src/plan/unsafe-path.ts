/**
 * Why a plan path (a `files` glob, an artifact, a wiring source, all relative to the stage's
 * `working_dir`; or `working_dir` itself) would reach outside the repository, or null when it
 * stays inside. Absolute paths (`/x`, `C:\x`, `~/x`) are refused; `..` is fine only while it
 * stays below the repository root (`working_dir: loom` with `../.github/ci.yml`).
 */
export function describeUnsafePath(path: string, workingDir = "."): string | null {
  if (isAbsolute(path)) return "must be relative to the repository, not absolute";
  const segments = [...(isAbsolute(workingDir) ? [] : splitPath(workingDir)), ...splitPath(path)];
  let depth = 0;
  for (const segment of segments) {
    if (segment === "..") depth--;
    else if (segment !== "." && segment !== "") depth++;
    if (depth < 0)
      return workingDir === "."
        ? 'leaves the repository through ".."'
        : `leaves the repository through ".." (from working_dir "${workingDir}")`;
  }
  return null;
}

function isAbsolute(path: string): boolean {
  return /^([/\\~]|[A-Za-z]:)/.test(path);
}

function splitPath(path: string): string[] {
  return path.split(/[/\\]/);
}
