/** What one release was: the data of its CHANGELOG entry. */
export type ReleaseNotes = {
  version: string;
  /** `YYYY-MM-DD`, the release commit's date. */
  date: string;
  repository: string;
  /** The release commit users pin (the tag points at it). */
  releaseSha: string;
  /** The previous release's tag, or null for the first one. */
  previousTag: string | null;
  /** The subjects of the commits since the previous release, oldest first. */
  subjects: string[];
  /**
   * What changed for users, as CHANGELOG.md's `## Unreleased` section says it (markdown); absent or
   * empty: the commit subjects are listed instead.
   */
  changes?: string;
};

const VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** Whether `version` is a semantic version (`1.2.3`, `1.2.3-rc.1`), as the tag `v<version>` uses. */
export function isReleaseVersion(version: string): boolean {
  return VERSION.test(version);
}

/** A subject as one markdown list line: first line only, at most 200 characters. */
function listLine(subject: string): string {
  const line = subject.split("\n")[0]?.trim() ?? "";
  return `- ${line.length > 200 ? `${line.slice(0, 199)}…` : line}`;
}

/** The CHANGELOG entry of a release: what to pin, then what changed since the previous one. */
export function renderChangelogEntry(notes: ReleaseNotes): string {
  return [
    `## v${notes.version} (${notes.date})`,
    "",
    `Release commit \`${notes.releaseSha}\` (tag \`v${notes.version}\`). Callers pin it:`,
    "",
    "```yaml",
    `uses: ${notes.repository}/.github/workflows/loom-stage.yml@${notes.releaseSha}`,
    "```",
    "",
    ...listChanges(notes),
    "",
  ].join("\n");
}

/** The Unreleased section's text as it is (it says what it covers), else the commit subjects under a line saying since when. */
function listChanges(notes: ReleaseNotes): string[] {
  const written = notes.changes?.trim() ?? "";
  if (written !== "") return [written];
  const since =
    notes.previousTag === null ? "First release. What it holds:" : `Changes since ${notes.previousTag}:`;
  if (notes.subjects.length === 0) return [since, "", "No changes since the previous release."];
  return [since, "", ...notes.subjects.map(listLine)];
}

const PREAMBLE =
  "# Changelog\n\nEvery release of loom, newest first. Pin the release commit, never a tag: a tag can move.\n\n";

/** The `## Unreleased` heading (also `## [Unreleased]`), any letter case. */
const UNRELEASED = /^## \[?unreleased\]?\s*$/i;

/**
 * CHANGELOG.md split at its `## ` headings: the text before the first (the title and preamble) and
 * each section; the `## Unreleased` section's body taken out, or null when there is none.
 */
export function takeUnreleased(existing: string): { head: string; unreleased: string | null; rest: string } {
  const lines = existing.split("\n");
  const first = lines.findIndex((line) => line.startsWith("## "));
  if (first === -1) return { head: existing, unreleased: null, rest: "" };
  const head = lines.slice(0, first).join("\n");
  if (!UNRELEASED.test(lines[first] ?? ""))
    return { head, unreleased: null, rest: lines.slice(first).join("\n") };
  const next = lines.findIndex((line, index) => index > first && line.startsWith("## "));
  const end = next === -1 ? lines.length : next;
  return {
    head,
    unreleased: lines
      .slice(first + 1, end)
      .join("\n")
      .trim(),
    rest: lines.slice(end).join("\n"),
  };
}

/**
 * `existing` CHANGELOG text (or "" for none yet) with `entry` as its newest entry: under the title
 * (kept as it is, or loom's when there is none) and an empty `## Unreleased` section, where changes
 * since this release are written. An `## Unreleased` section there already is replaced: its body
 * is what `entry` was rendered with (`takeUnreleased`).
 */
export function addChangelogEntry(existing: string, entry: string): string {
  const { head, rest } = takeUnreleased(existing);
  const title = head.trim() === "" ? PREAMBLE : `${head.trimEnd()}\n\n`;
  return `${title}## Unreleased\n\n${entry}${rest.trim() === "" ? "" : `\n${rest.trimEnd()}\n`}`;
}
