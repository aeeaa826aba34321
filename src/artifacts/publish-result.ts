import { z } from "zod";
import { KNOWN_SECRET_ENCODINGS } from "../redact/find-known-secrets.ts";

/**
 * The two artifacts between the stage workflow's jobs:
 * - `loom-bundle` (uploaded by `run`): `loom-bundle.json` (a `BundleManifest`) and, when the
 *   session made commits, `loom.bundle` (a git bundle of `refs/heads/loom/pr-<n>/<plan-id>/<stage-id>`
 *   with the checked-out head as its prerequisite: `git bundle create loom.bundle <base>..<ref>`).
 * - `loom-publish` (uploaded by `publish`): `loom-publish.json` (a `PublishResult`).
 * The publish job trusts neither the manifest nor the bundle: it re-reads the stage branch from
 * origin and checks everything itself. Texts in here are redacted by the writer.
 */

export const BUNDLE_ARTIFACT = "loom-bundle";
export const BUNDLE_FILE = "loom.bundle";
export const BUNDLE_MANIFEST_FILE = "loom-bundle.json";
export const PUBLISH_ARTIFACT = "loom-publish";
export const PUBLISH_RESULT_FILE = "loom-publish.json";
/**
 * The publish job also carries the run's `loom-result.json` (as the run job uploaded it) in
 * `loom-publish`, so the App reads one artifact for a finished run instead of two.
 */
export const CARRIED_RESULT_FILE = "loom-result.json";

const Sha = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/);

/**
 * One of the run job's own secrets (the model key, a token it holds), plain or encoded, found in
 * the session's commits. Never the value itself; a path is redacted before it is written here.
 */
export const CommitSecret = z.object({
  commit: Sha,
  /** In a file's content, in a file's name, or in the commit object itself (message, author). */
  where: z.enum(["content", "path", "commit"]),
  /** The file, for `content`. */
  path: z.string().max(4096).optional(),
  encoding: z.enum(KNOWN_SECRET_ENCODINGS),
});
export type CommitSecret = z.infer<typeof CommitSecret>;

export const BundleManifest = z.object({
  version: z.literal(1),
  plan_id: z.string().min(1),
  stage_id: z.string().min(1),
  attempt: z.number().int().positive(),
  /** `loom/pr-<n>/<plan-id>/<stage-id>`: the only ref the bundle may carry (as `refs/heads/<branch>`). */
  branch: z.string().min(1),
  /** The stage branch head the session started from (the bundle's prerequisite). */
  base_sha: Sha,
  /** The bundle's tip. Equal to `base_sha` when the session committed nothing. */
  head_sha: Sha,
  /** File name of the bundle inside the artifact; null when there is nothing to publish. */
  bundle: z.literal(BUNDLE_FILE).nullable(),
  /**
   * The run job's own secrets found in the session's commits. When there are any, the bundle was
   * not uploaded (`bundle` is null) and the publish job refuses with rule `secret`.
   */
  secrets: z.array(CommitSecret).max(100).optional(),
});
export type BundleManifest = z.infer<typeof BundleManifest>;

export const PUBLISH_RULES = [
  /** The artifact, manifest or bundle is missing, unreadable or inconsistent. */
  "bundle-invalid",
  /** The branch input is not `loom/pr-<n>/<plan-id>/<stage-id>` for this plan and stage. */
  "branch-name",
  /** The bundle carries a ref other than the stage branch. */
  "ref-not-allowed",
  /** The stage branch is missing on origin, or the bundle does not fast-forward it. */
  "not-fast-forward",
  /** A change under `.github/workflows/` (not a caller of loom) without `allow_workflow_changes`. */
  "workflow-change",
  /** A change to `.claude/`, `CLAUDE.md`, `CLAUDE.local.md`, `.mcp.json` (or Copilot's instructions) without `allow_agent_config_changes`. */
  "agent-config-change",
  /** A change to `.github/loom.yml` or a caller workflow of loom's stage workflow; no flag allows it. */
  "loom-config-change",
  /** A change elsewhere under `.github/` (actions, CODEOWNERS, dependabot, …); no flag allows it. */
  "github-change",
  /** An edit or deletion of existing lines in `doc/loom/knowledge/*.md` without `allow_knowledge_edits`. */
  "knowledge-rewrite",
  /** The session added, changed, renamed or deleted a plan file (`PLAN-*.md` in any folder, also `IN_PROGRESS-` and `DONE-`); no flag allows it. */
  "plan-change",
  /**
   * A secret in an added line, a changed path or a commit message; or one of the run job's own
   * secrets (model key, tokens), plain or encoded, anywhere in the session's commits.
   */
  "secret",
  /** Origin refused the push (e.g. the stage branch moved meanwhile). */
  "push-rejected",
] as const;
export const PublishRule = z.enum(PUBLISH_RULES);
export type PublishRule = z.infer<typeof PublishRule>;

export const PublishRefusal = z.object({
  rule: PublishRule,
  path: z.string().max(4096).optional(),
  /** What was wrong and what to do, for a person; never contains the secret itself. */
  detail: z.string().max(2000),
});
export type PublishRefusal = z.infer<typeof PublishRefusal>;

export const PublishResult = z.object({
  version: z.literal(1),
  ok: z.boolean(),
  plan_id: z.string(),
  stage_id: z.string(),
  branch: z.string(),
  /** The stage branch head on origin before publishing, when it could be read. */
  base_sha: Sha.optional(),
  /** The bundle's tip, when the bundle could be read. */
  head_sha: Sha.optional(),
  /**
   * Set when the stage branch was moved: to the bundle's tip, or to the commit loom made on top of
   * it with the run's accepted learnings (`doc/loom/knowledge/learnings/`).
   */
  pushed_sha: Sha.optional(),
  /** Commits checked (new to origin). */
  commits_checked: z.number().int().nonnegative(),
  refusals: z.array(PublishRefusal),
});
export type PublishResult = z.infer<typeof PublishResult>;
