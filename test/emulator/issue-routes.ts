import type { CommentRecord, ReactionRecord } from "./emulator-state.ts";
import { takeId } from "./emulator-state.ts";
import { commentJson, labelJson } from "./github-json.ts";
import { labelRoutes } from "./label-routes.ts";
import { checkLabel, createLabelRecord, findLabel } from "./repo-labels.ts";
import { userJson } from "./user-json.ts";
import { fail, notFound, ok, paginate, readString, type RouteRequest, type Routes } from "./route-reply.ts";

/** Issue comments, reactions on them, and labels on pull requests (through their issue). */

function pullOf(request: RouteRequest) {
  return request.core.findPull(request.repo, Number(request.params["issue_number"]));
}

function commentOf(request: RouteRequest): CommentRecord | undefined {
  const id = Number(request.params["comment_id"]);
  return request.core.state.comments.find((c) => c.repo === request.repo.fullName && c.id === id);
}

function reactionJson(request: RouteRequest, reaction: ReactionRecord) {
  return {
    id: reaction.id,
    node_id: `REA_${reaction.id}`,
    user: userJson(request.core.json, reaction.user),
    content: reaction.content,
    created_at: new Date(reaction.createdAt).toISOString(),
  };
}

function labelsOf(request: RouteRequest, names: string[]) {
  return names.map((name) => labelJson(request.core.json, request.repo, name));
}

export const issueRoutes: Routes = {
  ...labelRoutes,
  "issues/list-comments": (request) => {
    const { core, repo } = request;
    const pull = pullOf(request);
    if (!pull) return notFound();
    const since = request.query.get("since");
    const comments = core.state.comments
      .filter((c) => c.repo === repo.fullName && c.issueNumber === pull.number)
      .filter((c) => since === null || c.updatedAt >= Date.parse(since));
    const page = paginate(request, comments);
    return {
      status: 200,
      body: page.items.map((c) => commentJson(core.json, repo, c)),
      headers: page.headers,
    };
  },
  "issues/create-comment": async (request) => {
    const pull = pullOf(request);
    if (!pull) return notFound();
    const comment = await request.core.addComment(
      request.repo,
      pull,
      readString(request.body, "body") ?? "",
      request.login,
    );
    return ok(commentJson(request.core.json, request.repo, comment), 201);
  },
  "issues/get-comment": (request) => {
    const comment = commentOf(request);
    return comment ? ok(commentJson(request.core.json, request.repo, comment)) : notFound();
  },
  "issues/update-comment": async (request) => {
    const { core, repo } = request;
    const comment = commentOf(request);
    const pull = comment ? core.findPull(repo, comment.issueNumber) : undefined;
    if (!comment || !pull) return notFound();
    const before = comment.body;
    comment.body = readString(request.body, "body") ?? comment.body;
    comment.updatedAt = core.now();
    core.emit(repo, "issue_comment", "edited", request.login, {
      issue: await core.issueJson(repo, pull),
      comment: commentJson(core.json, repo, comment),
      changes: { body: { from: before } },
    });
    return ok(commentJson(core.json, repo, comment));
  },
  "reactions/create-for-issue-comment": (request) => {
    const { core, repo } = request;
    const comment = commentOf(request);
    if (!comment) return notFound();
    const content = readString(request.body, "content") ?? "";
    const existing = core.state.reactions.find(
      (r) => r.commentId === comment.id && r.content === content && r.user === request.login,
    );
    if (existing) return ok(reactionJson(request, existing));
    const reaction: ReactionRecord = {
      repo: repo.fullName,
      id: takeId(core.state),
      commentId: comment.id,
      content,
      user: request.login,
      createdAt: core.now(),
    };
    core.state.reactions.push(reaction);
    return ok(reactionJson(request, reaction), 201);
  },
  "reactions/list-for-issue-comment": (request) => {
    const comment = commentOf(request);
    if (!comment) return notFound();
    const content = request.query.get("content");
    const reactions = request.core.state.reactions.filter(
      (r) => r.commentId === comment.id && (content === null || r.content === content),
    );
    const page = paginate(request, reactions);
    return { status: 200, body: page.items.map((r) => reactionJson(request, r)), headers: page.headers };
  },
  "issues/list-labels-on-issue": (request) => {
    const pull = pullOf(request);
    if (!pull) return notFound();
    const page = paginate(request, pull.labels);
    return { status: 200, body: labelsOf(request, page.items), headers: page.headers };
  },
  "issues/add-labels": async (request) => {
    const pull = pullOf(request);
    if (!pull) return notFound();
    const given = request.body["labels"];
    const names = (Array.isArray(given) ? given : []).map((l: unknown) =>
      typeof l === "string" ? l : String((l as { name?: string }).name ?? ""),
    );
    if (names.some((n) => n === "")) return fail(422, "Invalid label name");
    // GitHub: adding labels through the API creates the ones the repository does not have yet
    // (unlike the web UI, which offers only existing labels: `Person.addLabel`).
    for (const name of names) {
      if (findLabel(request.core.state, request.repo, name)) continue;
      if (checkLabel(request.core.state, request.repo, { name })) return fail(422, "Validation Failed");
      createLabelRecord(request.core.state, request.repo, { name });
    }
    await request.core.changeLabels(request.repo, pull, names, [], request.login);
    return ok(labelsOf(request, pull.labels));
  },
  "issues/remove-label": async (request) => {
    const pull = pullOf(request);
    const name = request.params["name"] ?? "";
    if (!pull || !pull.labels.includes(name)) return fail(404, "Label does not exist");
    await request.core.changeLabels(request.repo, pull, [], [name], request.login);
    return ok(labelsOf(request, pull.labels));
  },
};
