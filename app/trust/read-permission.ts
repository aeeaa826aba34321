import { z } from "zod";
import type { ProbotOctokit } from "probot";
import { ROLES } from "../../src/config/loom-config.ts";
import { readStatus, toEffectError } from "../github/effect-context.ts";
import type { Role } from "../../src/config/loom-config.ts";

export type RepoRef = { owner: string; repo: string };

export type PermissionResult = { ok: true; role: Role } | { ok: false; reason: string };

const PermissionResponse = z.object({
  permission: z.string(),
  role_name: z.string().optional(),
});

/**
 * Reads a user's role on the repository from the API
 * (`GET /repos/{owner}/{repo}/collaborators/{username}/permission`). `role_name` is used when it is a
 * built-in role (it tells triage and maintain apart); a custom role falls back to its base
 * `permission`. GitHub's definite answers refuse: 404 (not a collaborator), any other 4xx, an
 * unexpected body. A failure that says nothing about the user (5xx, 429, a rate-limited 403, no
 * answer) throws instead, so the delivery waits in the inbox and is tried again: a writer's command
 * or plan is not refused, nor a plan sent for approval, because GitHub stumbled once.
 */
export async function readPermission(
  octokit: ProbotOctokit,
  repo: RepoRef,
  username: string,
): Promise<PermissionResult> {
  let data: unknown;
  try {
    const response = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: repo.owner,
      repo: repo.repo,
      username,
    });
    data = response.data;
  } catch (error) {
    const failure = toEffectError(`reading the permission of @${username}`, error);
    if (failure.retryable) throw failure;
    return { ok: false, reason: `could not read the permission of @${username} (HTTP ${readStatus(error)})` };
  }
  const parsed = PermissionResponse.safeParse(data);
  if (!parsed.success) return { ok: false, reason: `unexpected permission answer for @${username}` };
  const role = toRole(parsed.data.role_name) ?? toRole(parsed.data.permission);
  if (role === null) return { ok: false, reason: `unknown permission of @${username}` };
  return { ok: true, role };
}

function toRole(name: string | undefined): Role | null {
  return ROLES.find((role) => role === name) ?? null;
}
