import { notFound, ok, paginate, type RouteRequest, type Routes } from "./route-reply.ts";
import { diffEntryJson } from "./diff-entry-json.ts";

/** Pull requests (read-only: people open them through the emulator's helpers) and their issue view. */

function pullOf(request: RouteRequest, key: "pull_number" | "issue_number") {
  return request.core.findPull(request.repo, Number(request.params[key]));
}

export const pullRoutes: Routes = {
  "pulls/get": async (request) => {
    const pull = pullOf(request, "pull_number");
    return pull ? ok(await request.core.pullJson(request.repo, pull)) : notFound();
  },
  "pulls/list": async (request) => {
    const { core, repo, query } = request;
    const state = query.get("state") ?? "open";
    const head = query.get("head");
    const base = query.get("base");
    const pulls = core.state.pulls
      .filter((p) => p.repo === repo.fullName)
      .filter((p) => state === "all" || p.state === state)
      .filter((p) => head === null || `${p.headRepo.split("/")[0]}:${p.headRef}` === head)
      .filter((p) => base === null || p.baseRef === base)
      .sort((a, b) => b.number - a.number);
    const page = paginate(request, pulls);
    return {
      status: 200,
      body: await Promise.all(page.items.map((p) => core.pullJson(repo, p))),
      headers: page.headers,
    };
  },
  "pulls/list-files": async (request) => {
    const { core, repo } = request;
    const pull = pullOf(request, "pull_number");
    if (!pull) return notFound();
    const head = await core.headOf(repo, pull);
    const baseTip = (await repo.git.readBranch(pull.baseRef)) ?? head;
    const from = (await repo.git.mergeBase(baseTip, head)) ?? baseTip;
    const files = await repo.git.diffFiles(from, head);
    const page = paginate(request, files);
    const body = await Promise.all(page.items.map((f) => diffEntryJson(request, head, f)));
    return { status: 200, body, headers: page.headers };
  },
  "issues/get": async (request) => {
    const pull = pullOf(request, "issue_number");
    return pull ? ok(await request.core.issueJson(request.repo, pull)) : notFound();
  },
};
