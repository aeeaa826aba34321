import { randomBytes } from "node:crypto";
import { z } from "zod";
import { appJson, repoJson } from "./repo-json.ts";
import { iso, userJson } from "./user-json.ts";
import type { Role } from "./emulator-state.ts";
import { commitJson } from "./ref-routes.ts";
import { diffEntryJson } from "./diff-entry-json.ts";
import { fail, notFound, ok, type RouteRequest, type Routes } from "./route-reply.ts";
import { appTokenPermissions, grants, permissionsJson, type Permissions } from "./token-permissions.ts";

/** Installation tokens, the app, repositories, contents, compare and collaborator permissions. */

const LEGACY: Record<Role, string> = {
  admin: "admin",
  maintain: "write",
  write: "write",
  triage: "read",
  read: "read",
  none: "none",
};

function installationJson(request: RouteRequest, id: number) {
  const { core } = request;
  const owner = [...core.state.repos.values()].find((r) => r.installationId === id)?.owner ?? "emulator";
  return {
    id,
    account: userJson(core.json, owner),
    repository_selection: "selected",
    access_tokens_url: `${core.json.url}/app/installations/${id}/access_tokens`,
    repositories_url: `${core.json.url}/installation/repositories`,
    html_url: `https://github.emulator.invalid/settings/installations/${id}`,
    app_id: core.json.appId,
    app_slug: core.json.appSlug,
    target_id: 1,
    target_type: "Organization",
    permissions: permissionsJson(core.state.appPermissions),
    events: ["pull_request", "issue_comment", "check_run", "workflow_run"],
    created_at: iso(0),
    updated_at: iso(0),
    single_file_name: null,
    suspended_by: null,
    suspended_at: null,
  };
}

const RequestedPermissions = z.record(z.string(), z.enum(["read", "write"]));

/**
 * An installation token holds the App's permissions, or the subset the request names (GitHub:
 * 422 when it names more than the installation was granted). Null when it names more.
 */
function narrowPermissions(app: Permissions, requested: unknown): Permissions | null {
  if (requested === undefined) return app;
  const parsed = RequestedPermissions.safeParse(requested);
  if (!parsed.success) return null;
  const within = Object.entries(parsed.data).every(([name, level]) =>
    grants(app, name.replaceAll("_", "-"), level),
  );
  return within ? appTokenPermissions(parsed.data) : null;
}

async function getContent(request: RouteRequest) {
  const { repo, core } = request;
  const ref = request.query.get("ref") ?? repo.defaultBranch;
  const commit = await repo.git.resolve(ref);
  if (!commit) return fail(404, `No commit found for the ref ${ref}`);
  const file = (request.params["path"] ?? "").replace(/^\/+|\/+$/g, "");
  const api = `${core.json.url}/repos/${repo.fullName}/contents`;
  const entries = await repo.git.listTree(commit, file);
  if (entries) {
    return ok(
      entries.map((e) => ({
        type: e.type === "tree" ? "dir" : "file",
        name: e.path.split("/").pop(),
        path: e.path,
        sha: e.sha,
        size: e.size,
        url: `${api}/${e.path}?ref=${encodeURIComponent(ref)}`,
        git_url: null,
        html_url: null,
        download_url: null,
        _links: { self: `${api}/${e.path}`, git: null, html: null },
      })),
    );
  }
  const bytes = await repo.git.readBlob(commit, file);
  const sha = await repo.git.blobSha(commit, file);
  if (bytes === null || sha === null) return notFound();
  const accept = request.headers["accept"] ?? "";
  if (/application\/vnd\.github(\.v3)?\.raw/.test(accept)) {
    return {
      status: 200,
      raw: bytes,
      headers: { "content-type": "application/vnd.github.raw; charset=utf-8" },
    };
  }
  const base64 = bytes.toString("base64").replace(/(.{60})/g, "$1\n");
  return ok({
    type: "file",
    encoding: "base64",
    size: bytes.length,
    name: file.split("/").pop(),
    path: file,
    content: base64.endsWith("\n") ? base64 : `${base64}\n`,
    sha,
    url: `${api}/${file}?ref=${encodeURIComponent(ref)}`,
    git_url: `${core.json.url}/repos/${repo.fullName}/git/blobs/${sha}`,
    html_url: `https://github.emulator.invalid/${repo.fullName}/blob/${ref}/${file}`,
    download_url: null,
    _links: { self: `${api}/${file}`, git: null, html: null },
  });
}

async function compare(request: RouteRequest) {
  const { repo } = request;
  const [baseName = "", headName = ""] = (request.params["basehead"] ?? "").split("...");
  const base = await repo.git.resolve(baseName);
  const head = await repo.git.resolve(headName);
  if (!base || !head) return notFound();
  const { ahead, behind } = await repo.git.countDivergence(base, head);
  const status =
    ahead === 0 && behind === 0 ? "identical" : behind === 0 ? "ahead" : ahead === 0 ? "behind" : "diverged";
  const mergeBase = (await repo.git.mergeBase(base, head)) ?? base;
  const shas = await repo.git.listCommits(mergeBase, head, 250);
  const commits = await Promise.all(shas.map((sha) => repo.git.readCommit(sha)));
  const files = await repo.git.diffFiles(mergeBase, head);
  return ok({
    url: `${request.core.json.url}/repos/${repo.fullName}/compare/${baseName}...${headName}`,
    status,
    ahead_by: ahead,
    behind_by: behind,
    total_commits: ahead,
    html_url: `https://github.emulator.invalid/${repo.fullName}/compare/${baseName}...${headName}`,
    permalink_url: `https://github.emulator.invalid/${repo.fullName}/compare/${base}...${head}`,
    diff_url: `https://github.emulator.invalid/${repo.fullName}/compare/${baseName}...${headName}.diff`,
    patch_url: `https://github.emulator.invalid/${repo.fullName}/compare/${baseName}...${headName}.patch`,
    merge_base_commit: commitJson(request, await repo.git.readCommit(mergeBase)),
    base_commit: commitJson(request, await repo.git.readCommit(base)),
    commits: commits.map((c) => commitJson(request, c)),
    files: await Promise.all(files.map((f) => diffEntryJson(request, head, f))),
  });
}

export const repoRoutes: Routes = {
  "apps/create-installation-access-token": (request) => {
    const id = Number(request.params["installation_id"]);
    if (![...request.core.state.repos.values()].some((r) => r.installationId === id)) return notFound();
    const permissions = narrowPermissions(request.core.state.appPermissions, request.body["permissions"]);
    if (permissions === null)
      return fail(422, "The permissions requested are not granted to this installation.");
    const token = `ghs_${randomBytes(18).toString("hex")}`;
    request.core.state.tokens.set(token, { kind: "installation", permissions });
    return ok(
      {
        token,
        expires_at: iso(request.core.now() + 3_600_000),
        permissions: permissionsJson(permissions),
        repository_selection: "selected",
      },
      201,
    );
  },
  "apps/get-authenticated": ({ core }) => ok(appJson(core.json, "emulator")),
  "apps/get-repo-installation": (request) => ok(installationJson(request, request.repo.installationId)),
  "repos/get": ({ core, repo }) => ok(repoJson(core.json, repo)),
  "repos/get-content": getContent,
  "repos/compare-commits-with-basehead": compare,
  "repos/get-collaborator-permission-level": ({ core, repo, params }) => {
    const username = params["username"] ?? "";
    const role = core.state.permissions.get(repo.fullName)?.get(username.toLowerCase()) ?? core.defaultRole;
    return ok({
      permission: LEGACY[role],
      role_name: role,
      user: {
        ...userJson(core.json, username),
        role_name: role,
        permissions: {
          admin: role === "admin",
          maintain: role === "maintain" || role === "admin",
          push: LEGACY[role] === "write" || role === "admin",
          triage: role !== "read" && role !== "none",
          pull: role !== "none",
        },
      },
    });
  },
};
