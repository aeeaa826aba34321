import type { LoomRelease } from "../release/loom-releases.ts";
import { MAIN_CONTRACT, OIDC_GRANTS, STAGE_CONTRACTS } from "../release/stage-contract.ts";
import type { Grant } from "../release/stage-contract.ts";
import type { StageWorkflowUse } from "./parse-caller-workflow.ts";

/** The release to move a pin to: the newest speaking this App's contract, else the newest it serves. */
export function pickTargetRelease(releases: readonly LoomRelease[]): LoomRelease | null {
  const newest = (served: (release: LoomRelease) => boolean) => releases.filter(served).at(-1) ?? null;
  return (
    newest((release) => release.contract === MAIN_CONTRACT) ??
    newest((release) => STAGE_CONTRACTS[release.contract].served !== "no")
  );
}

/** What a caller of `workflow` at `release` must grant: its contract's scopes, plus OIDC's for `loom-stage-oidc.yml`. */
export function listNeededGrants(
  release: LoomRelease,
  workflow: StageWorkflowUse["workflow"],
): Record<string, Grant> {
  return {
    ...STAGE_CONTRACTS[release.contract].grants,
    ...(workflow === "loom-stage-oidc.yml" ? OIDC_GRANTS : {}),
  };
}

/** The calling job's two lines that pin `release`, as the example callers write them. */
export function renderPinLines(release: LoomRelease, workflow: StageWorkflowUse["workflow"]): string {
  const grants = Object.entries(listNeededGrants(release, workflow))
    .map(([scope, level]) => `${scope}: ${level}`)
    .join(", ");
  return [
    "```yaml",
    `    permissions: { ${grants} }`,
    `    uses: ${release.repository}/.github/workflows/${workflow}@${release.sha}`,
    "```",
  ].join("\n");
}

/** "Move the pin to loom X (…):" and the lines to paste; or why there is no release to move to. */
export function renderPinFix(
  target: LoomRelease | null,
  workflow: StageWorkflowUse["workflow"],
  path: string,
): string {
  if (target === null)
    return "No release of loom that this App serves is known: pin a commit of loom that is.";
  const unreleased =
    target.contract === MAIN_CONTRACT
      ? ""
      : ` No release speaks this App's contract (${MAIN_CONTRACT}) yet; ${target.version} is the newest this App serves.`;
  return [
    `Pin loom ${target.version} in the job of \`${path}\` that calls the stage workflow (its \`permissions\` and \`uses\` lines, on the default branch):${unreleased}`,
    "",
    renderPinLines(target, workflow),
  ].join("\n");
}

/** `text` fit for a code span on the check run: no backticks, at most `max` characters. */
export function quoteCode(text: string, max = 200): string {
  const plain = text.replaceAll("`", "'");
  return `\`${plain.length > max ? `${plain.slice(0, max - 1)}…` : plain}\``;
}

/** `` `path` line N: `uses: …` `` — the caller line loom read. */
export function quoteUsesLine(path: string, uses: StageWorkflowUse): string {
  return `\`${path}\` line ${uses.line}: ${quoteCode(uses.text)}`;
}
