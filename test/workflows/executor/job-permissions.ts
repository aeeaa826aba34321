import type { Value } from "./evaluate-template.ts";

export type Permissions = Record<string, "read" | "write" | "none">;

/** The scopes `permissions:` takes in a workflow. */
const SCOPES = [
  "actions",
  "attestations",
  "checks",
  "contents",
  "deployments",
  "discussions",
  "id-token",
  "issues",
  "models",
  "packages",
  "pages",
  "pull-requests",
  "repository-projects",
  "security-events",
  "statuses",
] as const;

const RANK = { none: 0, read: 1, write: 2 } as const;

/**
 * The token a job gets when neither it nor its workflow says: the repository's "restricted" default
 * (contents and packages read). The permissive default grants more; the stricter one is modelled.
 */
export const DEFAULT_PERMISSIONS: Permissions = { contents: "read", packages: "read" };

export class PermissionRefused extends Error {
  override name = "PermissionRefused";
}

/** A `permissions:` value (`read-all`, `write-all`, `{}` or a mapping) as scopes; null when absent. */
export function readPermissions(value: Value | undefined): Permissions | null {
  if (value === undefined || value === null) return null;
  if (value === "read-all" || value === "write-all") {
    const level = value === "read-all" ? "read" : "write";
    return Object.fromEntries(SCOPES.map((scope): [string, "read" | "write"] => [scope, level]));
  }
  if (typeof value !== "object" || Array.isArray(value))
    throw new PermissionRefused(`permissions: ${JSON.stringify(value)} is not valid`);
  const permissions: Permissions = {};
  for (const [scope, level] of Object.entries(value)) {
    if (
      !(SCOPES as readonly string[]).includes(scope) ||
      (level !== "read" && level !== "write" && level !== "none")
    )
      throw new PermissionRefused(`permissions: ${scope}: ${JSON.stringify(level)} is not valid`);
    permissions[scope] = level;
  }
  return permissions;
}

/**
 * GitHub's check when it loads a run, before any `if:`: a called workflow's job may not ask for more
 * than the calling job grants, or the whole run fails at startup with this message.
 */
export function checkNestedPermissions(job: string, asked: Permissions, allowed: Permissions): void {
  for (const [scope, level] of Object.entries(asked)) {
    const granted = allowed[scope] ?? "none";
    if (RANK[level] > RANK[granted])
      throw new PermissionRefused(
        `The nested job '${job}' is requesting '${scope}: ${level}', but is only allowed '${scope}: ${granted}'.`,
      );
  }
}
