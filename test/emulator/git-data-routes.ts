import { fail, notFound, ok, readString, type RouteRequest, type Routes } from "./route-reply.ts";

/**
 * The Git Data API loom uses to rename a plan file in one commit: read a commit, write a tree on a
 * base tree, write a commit. On the bare repository with real git; what GitHub refuses (a missing
 * object, a bad mode) is refused here too, with GitHub's 422 messages.
 */

const MODES = new Set(["100644", "100755", "040000", "160000", "120000"]);

function gitCommitJson(
  request: RouteRequest,
  c: Awaited<ReturnType<RouteRequest["repo"]["git"]["readCommit"]>>,
) {
  const api = `${request.core.json.url}/repos/${request.repo.fullName}/git`;
  const html = `https://github.emulator.invalid/${request.repo.fullName}/commit`;
  return {
    sha: c.sha,
    node_id: `C_${c.sha}`,
    url: `${api}/commits/${c.sha}`,
    html_url: `${html}/${c.sha}`,
    author: c.author,
    committer: c.committer,
    message: c.message,
    tree: { sha: c.tree, url: `${api}/trees/${c.tree}` },
    parents: c.parents.map((sha) => ({ sha, url: `${api}/commits/${sha}`, html_url: `${html}/${sha}` })),
    verification: { verified: false, reason: "unsigned", signature: null, payload: null, verified_at: null },
  };
}

function gitTagJson(
  request: RouteRequest,
  sha: string,
  t: NonNullable<Awaited<ReturnType<RouteRequest["repo"]["git"]["readTag"]>>>,
) {
  const api = `${request.core.json.url}/repos/${request.repo.fullName}/git`;
  return {
    node_id: `TAG_${sha.slice(0, 12)}`,
    tag: t.tag,
    sha,
    url: `${api}/tags/${sha}`,
    message: t.message,
    tagger: t.tagger,
    object: { sha: t.object.sha, type: t.object.type, url: `${api}/${t.object.type}s/${t.object.sha}` },
    verification: { verified: false, reason: "unsigned", signature: null, payload: null, verified_at: null },
  };
}

const TAG_TYPES = new Set(["commit", "tree", "blob"]);

export const gitDataRoutes: Routes = {
  "git/create-tag": async (request) => {
    const { repo, body } = request;
    const tag = readString(body, "tag") ?? "";
    const message = readString(body, "message") ?? "";
    const object = readString(body, "object") ?? "";
    const type = readString(body, "type") ?? "";
    if (tag === "" || !TAG_TYPES.has(type)) return fail(422, "Invalid request: tag and type are required");
    if (!/^[0-9a-f]{40}$/.test(object)) return fail(422, "Object does not exist");
    // Without a tagger GitHub records the token's user (for an App: its bot).
    const tagger = { name: request.login, email: `${request.login}@users.noreply.github.com` };
    const sha = await repo.git.writeTag({ tag, message, object, type, tagger });
    if (sha === null) return fail(422, "Object does not exist");
    const written = await repo.git.readTag(sha);
    return written === null ? fail(500, "tag not written") : ok(gitTagJson(request, sha, written), 201);
  },
  "git/get-tag": async (request) => {
    const sha = request.params["tag_sha"] ?? "";
    const tag = /^[0-9a-f]{40}$/.test(sha) ? await request.repo.git.readTag(sha) : null;
    return tag === null ? notFound() : ok(gitTagJson(request, sha, tag));
  },
  "git/get-commit": async (request) => {
    const sha = request.params["commit_sha"] ?? "";
    if (!/^[0-9a-f]{40}$/.test(sha) || !(await request.repo.git.objectExists(sha))) return notFound();
    return ok(gitCommitJson(request, await request.repo.git.readCommit(sha)));
  },
  "git/create-tree": async (request) => {
    const { repo, body } = request;
    const base = readString(body, "base_tree") ?? null;
    const raw = Array.isArray(body["tree"]) ? (body["tree"] as Record<string, unknown>[]) : [];
    const entries: { path: string; mode: string; sha: string | null }[] = [];
    for (const entry of raw) {
      const path = readString(entry, "path") ?? "";
      const mode = readString(entry, "mode") ?? "";
      if (!MODES.has(mode)) return fail(422, `tree.mode ${JSON.stringify(mode)} is not a valid mode`);
      if (path === "" || path.startsWith("/") || path.split("/").some((part) => part === "" || part === ".."))
        return fail(422, `tree.path ${JSON.stringify(path)} is not a valid path`);
      if (entry["content"] !== undefined) return fail(422, "the emulator takes blob SHAs only in trees");
      entries.push({ path, mode, sha: entry["sha"] === null ? null : (readString(entry, "sha") ?? "") });
    }
    const tree = await repo.git.writeTree(base, entries);
    // GitHub: "GitRPC::BadObjectState" for a base tree or blob that is not in the repository.
    if (tree === null) return fail(422, "GitRPC::BadObjectState");
    const api = `${request.core.json.url}/repos/${repo.fullName}/git`;
    return ok({ sha: tree, url: `${api}/trees/${tree}`, tree: [], truncated: false }, 201);
  },
  "git/create-commit": async (request) => {
    const { repo, body } = request;
    const tree = readString(body, "tree") ?? "";
    const message = readString(body, "message") ?? "";
    const parents = Array.isArray(body["parents"]) ? body["parents"].map(String) : [];
    if (!/^[0-9a-f]{40}$/.test(tree) || !(await repo.git.objectExists(tree, "tree")))
      return fail(422, "Tree SHA does not exist");
    for (const sha of parents)
      if (!/^[0-9a-f]{40}$/.test(sha) || !(await repo.git.objectExists(sha)))
        return fail(422, "Parent SHA does not exist or is not a commit object");
    // Without an author GitHub records the token's user (for an App: its bot).
    const author = { name: `${request.login}`, email: `${request.login}@users.noreply.github.com` };
    const sha = await repo.git.commitTree(tree, parents, message, author);
    return ok(gitCommitJson(request, await repo.git.readCommit(sha)), 201);
  },
};
