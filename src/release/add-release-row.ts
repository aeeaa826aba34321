import type { LoomRelease } from "./loom-releases.ts";

/** `loom-releases.ts` is not in the shape `addReleaseRow` rewrites, or already holds the release. */
export class ReleaseTableError extends Error {
  override name = "ReleaseTableError";
}

const OPENING = "export const LOOM_RELEASES: readonly LoomRelease[] = [\n";

/**
 * The source of `src/release/loom-releases.ts` with `release` as its newest row (last), written as
 * prettier writes it. Throws `ReleaseTableError` when the table is not found or already names the
 * version or the commit.
 */
export function addReleaseRow(source: string, release: LoomRelease): string {
  const start = source.indexOf(OPENING);
  const end = start === -1 ? -1 : source.indexOf("\n];", start);
  if (end === -1) throw new ReleaseTableError("src/release/loom-releases.ts has no LOOM_RELEASES table");
  const table = source.slice(start, end);
  for (const taken of [`version: "${release.version}"`, `sha: "${release.sha}"`]) {
    if (table.includes(taken)) throw new ReleaseTableError(`the release table already has ${taken}`);
  }
  const row = [
    "  {",
    `    version: "${release.version}",`,
    `    repository: "${release.repository}",`,
    `    sha: "${release.sha}",`,
    `    contract: "${release.contract}",`,
    "  },",
  ].join("\n");
  return `${source.slice(0, end)}\n${row}${source.slice(end)}`;
}

/** The releases `loom-releases.ts`'s source lists, oldest first: version and commit of each row. */
export function readReleaseRows(source: string): { version: string; sha: string }[] {
  const rows = source.matchAll(/version: "([^"]+)",\s*repository: "[^"]*",\s*sha: "([0-9a-f]{40})"/g);
  return [...rows].map((row) => ({ version: row[1] ?? "", sha: row[2] ?? "" }));
}
