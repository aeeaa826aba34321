import { readFileSync } from "node:fs";
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
 * The scopes a job's `permissions:` may name and the levels each takes, from GitHub's own workflow
 * schema (`@actions/workflow-parser`'s `permissions-mapping`: `id-token` only `write`/`none`,
 * `models` only `read`/`none`, …), the schema the workflow executor parses with. `metadata` is
 * not among them: every token holds `metadata: read`, and no workflow names it.
 */
const WORKFLOW_SCHEMA = JSON.parse(
  readFileSync(new URL("./workflow-v1.0.min.json", import.meta.resolve("@actions/workflow-parser")), "utf8"),
) as {
  definitions: Record<string, { mapping?: { properties: Record<string, { type: string }> } }>;
};
const LEVELS: Record<string, readonly ("read" | "write" | "none")[]> = {
  "permission-level-any": ["read", "write", "none"],
  "permission-level-read-or-no-access": ["read", "none"],
  "permission-level-write-or-no-access": ["write", "none"],
};
const LEVELS_OF: Readonly<Record<string, readonly ("read" | "write" | "none")[]>> = Object.fromEntries(
  Object.entries(WORKFLOW_SCHEMA.definitions["permissions-mapping"]?.mapping?.properties ?? {}).map(
    ([scope, { type }]) => {
      const levels = LEVELS[type];
      if (levels === undefined) throw new Error(`GitHub's workflow schema: ${scope} has levels ${type}`);
      return [scope, levels];
    },
  ),
);
export const JOB_SCOPES = Object.keys(LEVELS_OF);

/**
 * `permissions: read-all` / `write-all`: every scope a job may name at that level, or the highest
 * level below it the scope takes (`id-token` has no `read`: none under `read-all`; `models` stays
 * `read` under `write-all`).
 */
export function allJobScopes(level: "read" | "write"): Permissions {
  const held: Record<string, Level> = {};
  for (const scope of JOB_SCOPES) {
    const allowed = LEVELS_OF[scope] ?? [];
    held[scope] = allowed.includes(level) ? level : allowed.includes("read") ? "read" : "none";
  }
  return held;
}

export const JobPermissions = z
  .record(z.string(), z.enum(["read", "write", "none"]))
  .superRefine((asked, context) => {
    for (const [scope, level] of Object.entries(asked)) {
      const allowed = LEVELS_OF[scope];
      if (allowed === undefined)
        context.addIssue({ code: "custom", path: [scope], message: `${scope} is no permission a job names` });
      else if (!allowed.includes(level))
        context.addIssue({ code: "custom", path: [scope], message: `${scope} cannot be ${level}` });
    }
  });
export type JobPermissions = z.infer<typeof JobPermissions>;

/**
 * A job without `permissions:` gets the repository's default for `GITHUB_TOKEN`. Repositories and
 * organizations created since February 2023 default to "read repository contents and packages"
 * (GitHub's restricted default); the emulator models that one, the stricter.
 */
export const DEFAULT_JOB_SCOPES: Permissions = { contents: "read", packages: "read" };
export const DEFAULT_JOB_PERMISSIONS: Permissions = { ...DEFAULT_JOB_SCOPES, metadata: "read" };

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
