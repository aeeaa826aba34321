import type { Caller } from "./caller-of.ts";
import type { Core } from "./create-core.ts";
import type { RepoRecord, Role } from "./emulator-state.ts";
import { leastRole, ROUTE_ACCESS, satisfies } from "./route-access.ts";
import { fail, type Reply } from "./route-reply.ts";
import { grants } from "./token-permissions.ts";

/**
 * Whether a caller may use a REST operation (`ROUTE_ACCESS`) or git's smart HTTP on a repository,
 * answered as GitHub answers: null when it may, else the refusal.
 */

const ROLES: readonly Role[] = ["none", "read", "triage", "write", "maintain", "admin"];

export function roleOf(core: Core, repo: RepoRecord, login: string): Role {
  return core.state.permissions.get(repo.fullName)?.get(login.toLowerCase()) ?? core.defaultRole;
}

function atLeast(role: Role, least: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(least);
}

const BAD_CREDENTIALS = 401;
const NOT_INTEGRATION = "Resource not accessible by integration";
const NOT_PERSONAL = "Resource not accessible by personal access token";

/** A token whose job ended: GitHub's answer to any request with it. */
export function badCredentials(): Reply {
  return fail(BAD_CREDENTIALS, "Bad credentials");
}

/**
 * The refusal of `operationId` to `caller` on `repo` (undefined for routes without one), or null.
 * Operations the table does not know are left to the router (unimplemented: 404).
 */
export function checkRestAccess(
  core: Core,
  caller: Caller,
  operationId: string,
  repo: RepoRecord | undefined,
): Reply | null {
  const access = ROUTE_ACCESS[operationId];
  if (access === undefined || access.kind === "open") return null;
  if (caller.kind === "ended") return badCredentials();
  if (access.kind === "app-jwt")
    return caller.kind === "app-jwt" ? null : fail(401, "A JSON web token could not be decoded");
  switch (caller.kind) {
    case "app-jwt":
      return fail(403, NOT_INTEGRATION);
    case "job":
      if (repo !== undefined && repo.fullName !== caller.repo) return fail(404, "Not Found");
      return satisfies(access.anyOf, (scope, level) => grants(caller.permissions, scope, level))
        ? null
        : fail(403, NOT_INTEGRATION);
    case "installation":
      return satisfies(access.anyOf, (scope, level) => grants(caller.permissions, scope, level))
        ? null
        : fail(403, NOT_INTEGRATION);
    case "person":
    case "anonymous": {
      const least = leastRole(access);
      const role = caller.kind === "person" && repo ? roleOf(core, repo, caller.login) : "none";
      // Anyone may read a public repository; a private one is invisible to those without a role.
      const seen: Role = repo && !repo.private && role === "none" ? "read" : role;
      if (seen === "none") return fail(404, "Not Found");
      if (least !== "app-only" && atLeast(seen, least)) return null;
      return caller.kind === "anonymous" ? fail(401, "Requires authentication") : fail(403, NOT_PERSONAL);
    }
  }
}

/** What a refused git client gets: a plain-text body that git prints as `remote: …`. */
function gitRefusal(status: number, text: string, headers: Record<string, string> = {}): Reply {
  return { status, headers: { "content-type": "text/plain", ...headers }, raw: Buffer.from(`${text}\n`) };
}

const CHALLENGE = { "www-authenticate": 'Basic realm="GitHub"' };

/**
 * Git smart HTTP: fetch and clone need `contents: read` (a person: read, or any public repository),
 * a push (`git-receive-pack`) `contents: write` (a person: write). Refused as GitHub refuses: 403
 * "Permission to <owner>/<repo>.git denied to <login>." (git prints it as `remote: …` and fails
 * with "The requested URL returned error: 403"); a push without credentials is challenged (401) so
 * git sends the token it holds; an ended job's token gets 401 (git: "Authentication failed").
 */
export function checkGitAccess(core: Core, caller: Caller, repo: RepoRecord, pushing: boolean): Reply | null {
  const level = pushing ? "write" : "read";
  const denied = gitRefusal(403, `Permission to ${repo.fullName}.git denied to ${caller.login}.`);
  switch (caller.kind) {
    case "anonymous":
      return pushing || repo.private ? gitRefusal(401, "Authentication required", CHALLENGE) : null;
    case "ended":
    case "app-jwt":
      return gitRefusal(
        401,
        "Invalid username or token. Password authentication is not supported for Git operations.",
        CHALLENGE,
      );
    case "job":
      if (repo.fullName !== caller.repo) return gitRefusal(404, "Repository not found.");
      return grants(caller.permissions, "contents", level) ? null : denied;
    case "installation":
      return grants(caller.permissions, "contents", level) ? null : denied;
    case "person": {
      const role = roleOf(core, repo, caller.login);
      if (role === "none" && repo.private) return gitRefusal(404, "Repository not found.");
      return atLeast(role, pushing ? "write" : "none") ? null : denied;
    }
  }
}
