/**
 * Rewrites loom's own references in workflow text to a released repository and commit, leaving every
 * other `uses:` alone. loom's stage workflow uses the action as `<owner>/<repo>/action@<sha>`, and the
 * caller users copy uses the stage workflow as `<owner>/<repo>/.github/workflows/loom-stage.yml@<sha>`;
 * both must be full commit SHAs (a tag can move, FACTS: pin by SHA).
 */
export type LoomRef = "action" | "stage-workflow";

export type StampResult = { text: string; count: number };

const REPOSITORY = /^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/;
const SHA = /^[0-9a-f]{40}$/;

const PATTERNS: Record<LoomRef, RegExp> = {
  action: /(uses:\s*["']?)[A-Za-z0-9-]+\/[A-Za-z0-9._-]+\/action@[0-9a-f]{40}/g,
  "stage-workflow":
    /(uses:\s*["']?)[A-Za-z0-9-]+\/[A-Za-z0-9._-]+\/\.github\/workflows\/loom-stage\.yml@[0-9a-f]{40}/g,
};

const PATHS: Record<LoomRef, string> = {
  action: "action",
  "stage-workflow": ".github/workflows/loom-stage.yml",
};

/** Points every loom reference of `kind` in `text` at `repository@sha`; throws on a malformed target. */
export function stampLoomRefs(text: string, kind: LoomRef, repository: string, sha: string): StampResult {
  if (!REPOSITORY.test(repository)) throw new Error(`"${repository}" is not an owner/name repository`);
  if (!SHA.test(sha)) throw new Error(`"${sha}" is not a full 40-character commit SHA`);
  let count = 0;
  const stamped = text.replace(PATTERNS[kind], (_match, prefix: string) => {
    count += 1;
    return `${prefix}${repository}/${PATHS[kind]}@${sha}`;
  });
  // The placeholder's comment says what to do; a released reference says what it is.
  return { text: stamped.replaceAll("# placeholder: loom release", `# loom release`), count };
}
