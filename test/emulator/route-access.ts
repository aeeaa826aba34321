import type { Role } from "./emulator-state.ts";

/**
 * What each REST operation the emulator knows asks of a token, by GitHub operation id.
 *
 * GitHub's OpenAPI description names no permissions (its `x-github` metadata only says
 * `enabledForGitHubApps`); the table follows GitHub's "Permissions required for GitHub Apps"
 * (github/docs `src/github-apps/data/fpt-2022-11-28/server-to-server-permissions.json`), which
 * lists each endpoint under the permission(s) it needs:
 *
 * - `repo`: a token must hold every permission of at least one set in `anyOf` (`write` includes
 *   `read`). Issue comments and labels are listed under both Issues and Pull requests: either
 *   does (a job with `pull-requests: write` may comment on a pull request). `pulls/get` is listed
 *   under both Contents and Pull requests with "additional permissions", which GitHub's page
 *   leaves open (both, or either): the emulator asks for both, the stricter reading.
 * - `app-jwt`: the App's own JWT, nothing else (GitHub: 401 "A JSON web token could not be decoded").
 * - `open`: no credentials (the manifest conversion).
 *
 * People act with their repository role: `person` says the least role an operation takes when it
 * is not what `anyOf` implies (read for reads, write for writes). Writing check runs is for
 * GitHub Apps only (`app-only`). GitHub lists public repositories' reads as open to anyone; the
 * emulator asks for the permission anyway (stricter, never more lenient).
 */

export type Need = Readonly<Record<string, "read" | "write">>;

export type RouteAccess =
  | { kind: "repo"; anyOf: readonly Need[]; person?: Role | "app-only" }
  | { kind: "app-jwt" }
  | { kind: "open" };

function needs(anyOf: Need[], person?: Role | "app-only"): RouteAccess {
  return person === undefined ? { kind: "repo", anyOf } : { kind: "repo", anyOf, person };
}

const read = (scope: string): Need[] => [{ [scope]: "read" }];
const write = (scope: string): Need[] => [{ [scope]: "write" }];
/** Listed under Issues and under Pull requests: either permission does. */
const issueOrPull = (level: "read" | "write"): Need[] => [{ issues: level }, { "pull-requests": level }];
/** Secrets: a permission no job can hold, so `GITHUB_TOKEN` never reads or lists them. */
const secrets = (level: "read" | "write"): RouteAccess => needs([{ secrets: level }], "admin");

const APP_JWT: RouteAccess = { kind: "app-jwt" };

export const ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  "apps/create-from-manifest": { kind: "open" },
  "apps/get-authenticated": APP_JWT,
  "apps/get-repo-installation": APP_JWT,
  "apps/create-installation-access-token": APP_JWT,

  "repos/get": needs(read("metadata")),
  "repos/get-collaborator-permission-level": needs(read("metadata")),
  "repos/get-content": needs(read("contents")),
  "repos/compare-commits-with-basehead": needs(read("contents")),
  "repos/get-branch": needs(read("contents")),
  "repos/get-commit": needs(read("contents")),
  "repos/merge": needs(write("contents")),
  "git/get-ref": needs(read("contents")),
  "git/create-ref": needs(write("contents")),
  "git/update-ref": needs(write("contents")),
  "git/delete-ref": needs(write("contents")),
  "git/get-commit": needs(read("contents")),
  "git/create-tree": needs(write("contents")),
  "git/create-commit": needs(write("contents")),
  "git/create-tag": needs(write("contents")),
  "git/get-tag": needs(read("contents")),

  "pulls/get": needs([{ "pull-requests": "read", contents: "read" }]),
  "pulls/list": needs(read("pull-requests")),
  "pulls/list-files": needs(read("pull-requests")),
  "issues/get": needs(read("issues")),
  "issues/list-comments": needs(issueOrPull("read")),
  "issues/get-comment": needs(issueOrPull("read")),
  "issues/create-comment": needs(issueOrPull("write"), "read"),
  "issues/update-comment": needs(issueOrPull("write")),
  "reactions/list-for-issue-comment": needs(read("issues")),
  "reactions/create-for-issue-comment": needs(write("issues"), "read"),
  "issues/list-labels-on-issue": needs(issueOrPull("read")),
  "issues/add-labels": needs(issueOrPull("write"), "triage"),
  "issues/remove-label": needs(issueOrPull("write"), "triage"),
  "issues/list-labels-for-repo": needs(issueOrPull("read")),
  "issues/get-label": needs(issueOrPull("read")),
  "issues/create-label": needs(issueOrPull("write")),

  "checks/create": needs(write("checks"), "app-only"),
  "checks/update": needs(write("checks"), "app-only"),
  "checks/get": needs(read("checks")),
  "checks/list-for-ref": needs(read("checks")),

  "actions/create-workflow-dispatch": needs(write("actions")),
  "actions/get-workflow": needs(read("actions")),
  "actions/list-workflow-runs": needs(read("actions")),
  "actions/list-workflow-runs-for-repo": needs(read("actions")),
  "actions/get-workflow-run": needs(read("actions")),
  "actions/list-jobs-for-workflow-run": needs(read("actions")),
  "actions/get-job-for-workflow-run": needs(read("actions")),
  "actions/cancel-workflow-run": needs(write("actions")),
  "actions/force-cancel-workflow-run": needs(write("actions")),
  "actions/list-workflow-run-artifacts": needs(read("actions")),
  "actions/get-artifact": needs(read("actions")),
  "actions/download-artifact": needs(read("actions")),
  "actions/delete-artifact": needs(write("actions")),

  // Not served (no secrets are kept), but refused as GitHub refuses them before anything else.
  "actions/list-repo-secrets": secrets("read"),
  "actions/list-repo-organization-secrets": secrets("read"),
  "actions/get-repo-public-key": secrets("read"),
  "actions/get-repo-secret": secrets("read"),
  "actions/create-or-update-repo-secret": secrets("write"),
  "actions/delete-repo-secret": secrets("write"),
  "actions/list-environment-secrets": secrets("read"),
  "actions/get-environment-public-key": secrets("read"),
  "actions/get-environment-secret": secrets("read"),
  "actions/create-or-update-environment-secret": secrets("write"),
  "actions/delete-environment-secret": secrets("write"),
};

/** Whether `held` (permission → level) satisfies one of the sets in `anyOf`. */
export function satisfies(
  anyOf: readonly Need[],
  holds: (scope: string, level: "read" | "write") => boolean,
) {
  return anyOf.some((need) => Object.entries(need).every(([scope, level]) => holds(scope, level)));
}

/** The least repository role a person needs for an operation: its `person`, else write for writes, read for reads. */
export function leastRole(access: Extract<RouteAccess, { kind: "repo" }>): Role | "app-only" {
  if (access.person !== undefined) return access.person;
  return access.anyOf.every((need) => Object.values(need).includes("write")) ? "write" : "read";
}
