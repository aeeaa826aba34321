import {
  allJobScopes,
  DEFAULT_JOB_SCOPES,
  grants,
  JobPermissions,
  type Permissions,
} from "../../emulator/token-permissions.ts";
import type { Value } from "./evaluate-template.ts";

export type { Permissions };

/**
 * The token a job gets when neither it nor its workflow says: the repository's "restricted" default
 * (contents and packages read), as the emulator makes it (`DEFAULT_JOB_SCOPES`; the token also
 * holds `metadata: read`, which no workflow names).
 */
export const DEFAULT_PERMISSIONS: Permissions = DEFAULT_JOB_SCOPES;

export class PermissionRefused extends Error {
  override name = "PermissionRefused";
}

/**
 * A `permissions:` value (`read-all`, `write-all`, `{}` or a mapping) as scopes; null when absent.
 * GitHub's parser has checked it against its schema when the workflow loaded (a scope it does not
 * know, or `id-token: read`, fails the run at startup there); the emulator checks it again when it
 * makes the job's token.
 */
export function readPermissions(value: Value | undefined): Permissions | null {
  if (value === undefined || value === null) return null;
  if (value === "read-all" || value === "write-all")
    return allJobScopes(value === "read-all" ? "read" : "write");
  const parsed = typeof value === "object" && !Array.isArray(value) ? JobPermissions.safeParse(value) : null;
  if (parsed === null || !parsed.success)
    throw new PermissionRefused(`permissions: ${JSON.stringify(value)} is not valid`);
  return parsed.data;
}

/**
 * GitHub's check when it loads a run, before any `if:`: a called workflow's job may not ask for more
 * than the calling job grants, or the whole run fails at startup with this message.
 */
export function checkNestedPermissions(job: string, asked: Permissions, allowed: Permissions): void {
  for (const [scope, level] of Object.entries(asked)) {
    if (level === "none") continue;
    if (level === "admin" || !grants(allowed, scope, level))
      throw new PermissionRefused(
        `The nested job '${job}' is requesting '${scope}: ${level}', but is only allowed '${scope}: ${allowed[scope] ?? "none"}'.`,
      );
  }
}
