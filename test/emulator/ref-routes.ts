import { commitFilesJson } from "./diff-entry-json.ts";
import { fail, notFound, ok, readString, type RouteRequest, type Routes } from "./route-reply.ts";

/** Git refs and server-side merges, on the bare repository with real git. */

function refJson(request: RouteRequest, ref: string, sha: string, type = "commit") {
  const api = `${request.core.json.url}/repos/${request.repo.fullName}/git`;
  return {
    ref,
    node_id: `REF_${sha.slice(0, 12)}`,
    url: `${api}/${ref}`,
    object: { sha, type, url: `${api}/${type}s/${sha}` },
  };
}

/**
 * What a ref points at: a branch through the repository's cached resolve (always a commit), any
 * other ref (a tag, `refs/loom/…`) unpeeled, as GitHub answers: a ref to a tag object names the tag.
 */
async function readRefTarget(
  request: RouteRequest,
  ref: string,
): Promise<{ sha: string; type: string } | null> {
  if (ref.startsWith("refs/heads/")) {
    const sha = await request.repo.git.resolve(ref);
    return sha === null ? null : { sha, type: "commit" };
  }
  return request.repo.git.readRefObject(ref);
}

export function commitJson(
  request: RouteRequest,
  c: Awaited<ReturnType<RouteRequest["repo"]["git"]["readCommit"]>>,
) {
  const api = `${request.core.json.url}/repos/${request.repo.fullName}`;
  return {
    sha: c.sha,
    node_id: `C_${c.sha}`,
    url: `${api}/commits/${c.sha}`,
    html_url: `https://github.emulator.invalid/${request.repo.fullName}/commit/${c.sha}`,
    comments_url: `${api}/commits/${c.sha}/comments`,
    commit: {
      message: c.message,
      author: c.author,
      committer: c.committer,
      tree: { sha: c.tree, url: `${api}/git/trees/${c.tree}` },
      url: `${api}/git/commits/${c.sha}`,
      comment_count: 0,
    },
    author: {},
    committer: {},
    parents: c.parents.map((sha) => ({ sha, url: `${api}/commits/${sha}` })),
  };
}

function branchOfRef(ref: string): string | null {
  return ref.startsWith("heads/") ? ref.slice("heads/".length) : null;
}

export const refRoutes: Routes = {
  "git/get-ref": async (request) => {
    const ref = `refs/${request.params["ref"] ?? ""}`;
    const target = await readRefTarget(request, ref);
    return target ? ok(refJson(request, ref, target.sha, target.type)) : notFound();
  },
  "git/create-ref": async (request) => {
    const { repo, core, body } = request;
    const ref = readString(body, "ref") ?? "";
    const sha = readString(body, "sha") ?? "";
    if (!/^refs\/[^/]+\/.+/.test(ref))
      return fail(422, "ref must start with 'refs' and have at least two slashes.");
    if (!(await repo.git.objectExists(sha))) return fail(422, "Object does not exist");
    if (await repo.git.resolve(ref)) return fail(422, "Reference already exists");
    if (!(await repo.git.updateRef(ref, sha, ""))) return fail(422, "Reference already exists");
    const branch = ref.startsWith("refs/heads/") ? ref.slice("refs/heads/".length) : null;
    if (branch) await core.announcePush(repo, branch, "0".repeat(40), sha, request.login);
    const target = await readRefTarget(request, ref);
    return ok(refJson(request, ref, sha, target?.type), 201);
  },
  "git/update-ref": async (request) => {
    const { repo, core, body } = request;
    const name = request.params["ref"] ?? "";
    const ref = `refs/${name}`;
    const sha = readString(body, "sha") ?? "";
    const current = (await readRefTarget(request, ref))?.sha;
    if (!current) return fail(422, "Reference does not exist");
    if (!(await repo.git.objectExists(sha))) return fail(422, "Object does not exist");
    if (body["force"] !== true && !(await repo.git.isAncestor(current, sha)))
      return fail(422, "Update is not a fast forward");
    const branch = branchOfRef(name);
    const moved = branch
      ? await core.moveBranch(repo, branch, sha, request.login, current)
      : await repo.git.updateRef(ref, sha, current);
    if (!moved) return fail(422, "Update is not a fast forward");
    return ok(refJson(request, ref, sha, (await readRefTarget(request, ref))?.type));
  },
  "git/delete-ref": async (request) => {
    const ref = `refs/${request.params["ref"] ?? ""}`;
    if (!(await readRefTarget(request, ref))) return fail(422, "Reference does not exist");
    await request.repo.git.deleteRef(ref);
    return { status: 204 };
  },
  "repos/get-branch": async (request) => {
    const { repo } = request;
    const name = request.params["branch"] ?? "";
    const sha = await repo.git.readBranch(name);
    if (!sha) return fail(404, "Branch not found");
    return ok({
      name,
      commit: commitJson(request, await repo.git.readCommit(sha)),
      protected: false,
      _links: { self: "", html: "" },
    });
  },
  "repos/get-commit": async (request) => {
    const sha = await request.repo.git.resolve(request.params["ref"] ?? "");
    if (!sha) return fail(422, `No commit found for SHA: ${request.params["ref"] ?? ""}`);
    const commit = await request.repo.git.readCommit(sha);
    const [parent] = commit.parents;
    const changed = parent === undefined ? { files: [] } : await commitFilesJson(request, parent, sha);
    return ok({ ...commitJson(request, commit), ...changed });
  },
  "repos/merge": async (request) => {
    const { repo, core, body } = request;
    const baseName = readString(body, "base") ?? "";
    const headName = readString(body, "head") ?? "";
    const base = await repo.git.readBranch(baseName);
    if (!base) return fail(404, "Base does not exist");
    const head = (await repo.git.readBranch(headName)) ?? (await repo.git.resolve(headName));
    if (!head) return fail(404, "Head does not exist");
    if (await repo.git.isAncestor(head, base)) return { status: 204 };
    const message = readString(body, "commit_message") ?? `Merge ${headName} into ${baseName}`;
    const merged = await repo.git.merge(base, head, message, { name: "GitHub", email: "noreply@github.com" });
    if (merged.type === "conflict") return fail(409, "Merge conflict");
    if (!(await core.moveBranch(repo, baseName, merged.sha, request.login, base)))
      return fail(409, "Base moved during the merge; try again");
    const commit = commitJson(request, await repo.git.readCommit(merged.sha));
    return ok({ ...commit, ...(await commitFilesJson(request, base, merged.sha)) }, 201);
  },
};
