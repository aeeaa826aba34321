import { z } from "zod";

/**
 * What a token may do in a repository, by GitHub's permission names (`contents`, `pull-requests`,
 * …) and levels. Names are kept in the workflow spelling (hyphens); an App manifest's
 * `pull_requests` is the same permission.
 */

export type Level = "none" | "read" | "write" | "admin";

/** Permission name → level; a name that is missing is `none`. */
export type Permissions = Readonly<Record<string, Level>>;

const RANK: Record<Level, number> = { none: 0, read: 1, write: 2, admin: 3 };

/** Whether `held` includes `level` of `scope` (`write` includes `read`). */
export function grants(held: Permissions, scope: string, level: "read" | "write"): boolean {
  return RANK[held[scope] ?? "none"] >= RANK[level];
}

/**
 * The permissions a job's `permissions:` may name (GitHub's "Assigning permissions to jobs"), with
 * the levels each takes: `id-token` only `write`/`none`, `models` only `read`/`none`. `metadata`
 * is always `read`. Secrets are no permission a job can hold.
 */
const JOB_SCOPES = [
  "actions",
  "attestations",
  "checks",
  "contents",
  "deployments",
  "discussions",
  "id-token",
  "issues",
  "metadata",
  "models",
  "packages",
  "pages",
  "pull-requests",
  "repository-projects",
  "security-events",
  "statuses",
] as const;

const LEVELS_OF: Partial<Record<(typeof JOB_SCOPES)[number], readonly string[]>> = {
  "id-token": ["write", "none"],
  models: ["read", "none"],
  metadata: ["read"],
};

export const JobPermissions = z
  .partialRecord(z.enum(JOB_SCOPES), z.enum(["read", "write", "none"]))
  .superRefine((asked, context) => {
    for (const [scope, level] of Object.entries(asked)) {
      const allowed = LEVELS_OF[scope as keyof typeof LEVELS_OF];
      if (allowed && !allowed.includes(level))
        context.addIssue({ code: "custom", path: [scope], message: `${scope} cannot be ${level}` });
    }
  });
export type JobPermissions = z.infer<typeof JobPermissions>;

/**
 * A job without `permissions:` gets the repository's default for `GITHUB_TOKEN`. Repositories and
 * organizations created since February 2023 default to "read repository contents and packages"
 * (GitHub's restricted default); the emulator models that one, the stricter.
 */
export const DEFAULT_JOB_PERMISSIONS: Permissions = { contents: "read", packages: "read", metadata: "read" };

/**
 * The token permissions of a job whose `permissions:` is `asked` (undefined: none given, the
 * default). `{}` is `permissions: {}`: nothing but metadata. Throws on a name or level GitHub
 * refuses when it loads the workflow.
 */
export function jobTokenPermissions(asked: Readonly<Record<string, string>> | undefined): Permissions {
  if (asked === undefined) return DEFAULT_JOB_PERMISSIONS;
  const parsed = JobPermissions.safeParse(asked);
  if (!parsed.success)
    throw new Error(`GitHub refuses the job's permissions ${JSON.stringify(asked)}`, { cause: parsed.error });
  return { ...parsed.data, metadata: "read" };
}

const AppPermissions = z.record(z.string(), z.enum(["read", "write", "admin"]));

/**
 * What an installation of an App with these `default_permissions` (manifest or `app.yml`, GitHub's
 * underscore names) holds once installed: the same, plus `metadata: read`, which every App has.
 */
export function appTokenPermissions(manifestPermissions: unknown): Permissions {
  const parsed = AppPermissions.parse(manifestPermissions ?? {});
  const held: Record<string, Level> = { metadata: "read" };
  for (const [name, level] of Object.entries(parsed)) held[name.replaceAll("_", "-")] = level;
  return held;
}

/** `permissions` as GitHub's REST API spells them (installation and token objects): underscores, no `none`. */
export function permissionsJson(permissions: Permissions): Record<string, string> {
  return Object.fromEntries(
    Object.entries(permissions)
      .filter(([, level]) => level !== "none")
      .map(([name, level]) => [name.replaceAll("-", "_"), level]),
  );
}
