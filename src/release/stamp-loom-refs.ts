/**
 * Rewrites loom's own references in workflow text to a released repository and commit, leaving every
 * other `uses:` alone. loom's stage workflow uses the action as `<owner>/<repo>/action@<sha>`, and the
 * callers users copy use a stage workflow as `<owner>/<repo>/.github/workflows/loom-stage.yml@<sha>`
 * (or `loom-stage-oidc.yml`, whose name is kept); both must be full commit SHAs (a tag can move,
 * FACTS: pin by SHA).
 */
export type LoomRef = "action" | "stage-workflow";

export type StampResult = { text: string; count: number };

const REPOSITORY = /^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/;
const SHA = /^[0-9a-f]{40}$/;

const PATTERNS: Record<LoomRef, RegExp> = {
  action: /(uses:\s*["']?)[A-Za-z0-9-]+\/[A-Za-z0-9._-]+\/action@[0-9a-f]{40}/g,
  "stage-workflow":
    /(uses:\s*["']?)[A-Za-z0-9-]+\/[A-Za-z0-9._-]+\/(\.github\/workflows\/loom-stage(?:-oidc)?\.yml)@[0-9a-f]{40}/g,
};

/** Points every loom reference of `kind` in `text` at `repository@sha`; throws on a malformed target. */
export function stampLoomRefs(text: string, kind: LoomRef, repository: string, sha: string): StampResult {
  if (!REPOSITORY.test(repository)) throw new Error(`"${repository}" is not an owner/name repository`);
  if (!SHA.test(sha)) throw new Error(`"${sha}" is not a full 40-character commit SHA`);
  let count = 0;
  const stamped = text.replace(PATTERNS[kind], (_match, prefix: string, ...rest: unknown[]) => {
    count += 1;
    // The stage-workflow pattern captures the workflow's path; the action's path is fixed.
    const target = kind === "stage-workflow" ? String(rest[0]) : "action";
    return `${prefix}${repository}/${target}@${sha}`;
  });
  // The placeholder's comment says what to do; a released reference says what it is.
  return { text: stamped.replaceAll("# placeholder: loom release", `# loom release`), count };
}
