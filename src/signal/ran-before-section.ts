import { fenceData } from "./fence-data.ts";
import type { SignalInput } from "./signal-input.ts";

function listWithMore(items: readonly string[], more: number, what: string): string {
  return [...items, ...(more > 0 ? [`(${more} more ${what})`] : [])].join("\n");
}

/**
 * A completed stage run again: its earlier work is in the checkout, and what landed since loom
 * merged it (a person's push, a re-run upstream stage's new merge, a plan edit) is why it runs
 * again. The session reviews its work against that rather than starting over. "" for a first run
 * and for every other kind of session.
 */
export function renderRanBefore(input: SignalInput): string {
  const ran = input.ranBefore;
  if (input.kind !== "stage" || ran === undefined) return "";
  const since =
    ran.commits.length === 0
      ? "Nothing has landed on this branch since that merge.\n"
      : `These commits landed on this branch since that merge (newest first):\n\n` +
        `${fenceData("commits", listWithMore(ran.commits, ran.moreCommits, "commits"))}\n\n` +
        `They changed these paths:\n\n` +
        `${fenceData("paths", listWithMore(ran.paths, ran.morePaths, "paths"))}\n`;
  return (
    "## This Stage Ran Before\n\n" +
    `This stage completed before and loom merged its work (merge commit \`${ran.merge.slice(0, 7)}\`); ` +
    "it runs again because of what changed since. Your earlier work is in the checkout.\n\n" +
    since +
    "\nRead your earlier work and these changes first (`git show`, `git diff " +
    `${ran.merge.slice(0, 7)} HEAD\`), then change only what they require for the assignment and the ` +
    "acceptance criteria below to hold. If nothing needs to change, make no commits: loom runs the " +
    "checks on the work as it is and completes the stage when they pass.\n"
  );
}
