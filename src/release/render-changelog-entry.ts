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
  const changes =
    notes.subjects.length === 0 ? ["No changes since the previous release."] : notes.subjects.map(listLine);
  return [
    `## v${notes.version} (${notes.date})`,
    "",
    `Release commit \`${notes.releaseSha}\` (tag \`v${notes.version}\`). Callers pin it:`,
    "",
    "```yaml",
    `uses: ${notes.repository}/.github/workflows/loom-stage.yml@${notes.releaseSha}`,
    "```",
    "",
    notes.previousTag === null ? "First release. What it holds:" : `Changes since ${notes.previousTag}:`,
    "",
    ...changes,
    "",
  ].join("\n");
}

const PREAMBLE =
  "# Changelog\n\nEvery release of loom, newest first. Pin the release commit, never a tag: a tag can move.\n\n";

/** `existing` CHANGELOG text (or "" for none yet) with `entry` as its newest entry, under the title. */
export function addChangelogEntry(existing: string, entry: string): string {
  const earlier = existing.startsWith(PREAMBLE) ? existing.slice(PREAMBLE.length) : existing;
  return `${PREAMBLE}${entry}${earlier === "" ? "" : `\n${earlier}`}`;
}
