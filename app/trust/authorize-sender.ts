import type { ProbotOctokit } from "probot";
import { meetsRole } from "../../src/config/loom-config.ts";
import type { Role } from "../../src/config/loom-config.ts";
import { readPermission } from "./read-permission.ts";
import type { RepoRef } from "./read-permission.ts";

export type Authorization = { authorized: true; role: Role } | { authorized: false; reason: string };

/**
 * May this sender steer loom (commands, buttons, labels)? Only the permission GitHub reports counts:
 * no login, bot or otherwise, is trusted by name, and a failed lookup refuses.
 */
export async function authorizeSender(
  octokit: ProbotOctokit,
  repo: RepoRef,
  login: string,
  minimumRole: Role,
): Promise<Authorization> {
  const permission = await readPermission(octokit, repo, login);
  if (!permission.ok) return { authorized: false, reason: permission.reason };
  if (!meetsRole(permission.role, minimumRole)) {
    return {
      authorized: false,
      reason: `@${login} has ${permission.role} access; loom needs ${minimumRole} or above`,
    };
  }
  return { authorized: true, role: permission.role };
}
