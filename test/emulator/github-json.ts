import type {
  ArtifactRecord,
  CheckRunRecord,
  CommentRecord,
  PullRecord,
  RepoRecord,
  RunRecord,
} from "./emulator-state.ts";
import { HTML, idOfLogin, iso, userJson, type Json, type JsonContext } from "./user-json.ts";
import { actionsAppJson, appJson, repoJson } from "./repo-json.ts";

/**
 * GitHub-shaped JSON for the emulator's records, shared by REST answers and webhook payloads:
 * the fields loom reads, plus enough of the rest for clients that look.
 */

/**
 * GitHub-shaped JSON for the emulator's records, shared by REST answers and webhook payloads.
 */

export function labelJson(ctx: JsonContext, repo: RepoRecord, name: string): Json {
  const id = idOfLogin(`label:${name}`);
  return {
    id,
    node_id: `LA_${id}`,
    url: `${ctx.url}/repos/${repo.fullName}/labels/${encodeURIComponent(name)}`,
    name,
    color: "ededed",
    default: false,
    description: null,
  };
}

export function pullJson(
  ctx: JsonContext,
  repo: RepoRecord,
  pull: PullRecord,
  headSha: string,
  baseSha: string,
  /** The head repository (a fork's own record), or null when the fork was deleted. */
  head: RepoRecord | null,
): Json {
  const api = `${ctx.url}/repos/${repo.fullName}`;
  const [headOwner = repo.owner] = pull.headRepo.split("/");
  const headRepo = head === null ? null : { ...repoJson(ctx, head), fork: head.forkOf !== undefined };
  return {
    url: `${api}/pulls/${pull.number}`,
    id: pull.id,
    node_id: `PR_${pull.id}`,
    html_url: `${HTML}/${repo.fullName}/pull/${pull.number}`,
    issue_url: `${api}/issues/${pull.number}`,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: userJson(ctx, pull.user),
    body: pull.body,
    labels: pull.labels.map((name) => labelJson(ctx, repo, name)),
    created_at: iso(pull.createdAt),
    updated_at: iso(pull.updatedAt),
    closed_at: pull.state === "closed" ? iso(pull.updatedAt) : null,
    merged_at: pull.merged ? iso(pull.updatedAt) : null,
    merge_commit_sha: null,
    draft: false,
    head: {
      label: `${headOwner}:${pull.headRef}`,
      ref: pull.headRef,
      sha: headSha,
      user: userJson(ctx, headOwner),
      repo: headRepo,
    },
    base: {
      label: `${repo.owner}:${pull.baseRef}`,
      ref: pull.baseRef,
      sha: baseSha,
      user: userJson(ctx, repo.owner),
      repo: repoJson(ctx, repo),
    },
    author_association: "MEMBER",
    merged: pull.merged,
    merged_by: null,
    mergeable: null,
    mergeable_state: "unknown",
    maintainer_can_modify: false,
    auto_merge: null,
    assignee: null,
    milestone: null,
    review_comments: 0,
    diff_url: `${HTML}/${repo.fullName}/pull/${pull.number}.diff`,
    patch_url: `${HTML}/${repo.fullName}/pull/${pull.number}.patch`,
    commits_url: `${api}/pulls/${pull.number}/commits`,
    comments_url: `${api}/issues/${pull.number}/comments`,
    review_comments_url: `${api}/pulls/${pull.number}/comments`,
    review_comment_url: `${api}/pulls/comments{/number}`,
    statuses_url: `${api}/statuses/${headSha}`,
    _links: {
      self: { href: `${api}/pulls/${pull.number}` },
      html: { href: `${HTML}/${repo.fullName}/pull/${pull.number}` },
      issue: { href: `${api}/issues/${pull.number}` },
      comments: { href: `${api}/issues/${pull.number}/comments` },
      review_comments: { href: `${api}/pulls/${pull.number}/comments` },
      review_comment: { href: `${api}/pulls/comments{/number}` },
      commits: { href: `${api}/pulls/${pull.number}/commits` },
      statuses: { href: `${api}/statuses/${headSha}` },
    },
    comments: 0,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
}

export function commentJson(ctx: JsonContext, repo: RepoRecord, comment: CommentRecord): Json {
  const api = `${ctx.url}/repos/${repo.fullName}`;
  return {
    id: comment.id,
    node_id: `IC_${comment.id}`,
    url: `${api}/issues/comments/${comment.id}`,
    html_url: `${HTML}/${repo.fullName}/pull/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${api}/issues/${comment.issueNumber}`,
    body: comment.body,
    user: userJson(ctx, comment.user),
    created_at: iso(comment.createdAt),
    updated_at: iso(comment.updatedAt),
    author_association: "MEMBER",
  };
}

export function checkRunJson(ctx: JsonContext, repo: RepoRecord, run: CheckRunRecord, pulls: Json[]): Json {
  return {
    id: run.id,
    node_id: `CR_${run.id}`,
    head_sha: run.headSha,
    external_id: run.externalId ?? "",
    url: `${ctx.url}/repos/${repo.fullName}/check-runs/${run.id}`,
    html_url: `${HTML}/${repo.fullName}/runs/${run.id}`,
    // "If the integrator does not provide this, then the homepage of the GitHub app is used."
    details_url: run.detailsUrl ?? appJson(ctx, repo.owner)["external_url"],
    status: run.status,
    conclusion: run.conclusion,
    started_at: iso(run.startedAt),
    completed_at: iso(run.completedAt),
    output: {
      title: run.output.title,
      summary: run.output.summary,
      text: run.output.text,
      annotations_count: run.output.annotationsCount,
      annotations_url: `${ctx.url}/repos/${repo.fullName}/check-runs/${run.id}/annotations`,
    },
    name: run.name,
    check_suite: { id: run.checkSuiteId },
    app: run.app === "github-actions[bot]" ? actionsAppJson(ctx) : appJson(ctx, repo.owner),
    pull_requests: pulls,
    actions: run.actions,
  };
}

export function runJson(ctx: JsonContext, repo: RepoRecord, run: RunRecord): Json {
  const api = `${ctx.url}/repos/${repo.fullName}/actions/runs/${run.id}`;
  return {
    id: run.id,
    name: run.name,
    node_id: `WFR_${run.id}`,
    head_branch: run.headBranch,
    head_sha: run.headSha,
    path: run.workflowPath,
    display_title: run.displayTitle,
    run_number: run.id,
    event: run.event,
    status: run.status,
    conclusion: run.conclusion,
    workflow_id: run.workflowId,
    url: api,
    html_url: `${HTML}/${repo.fullName}/actions/runs/${run.id}`,
    pull_requests: [],
    created_at: iso(run.createdAt),
    updated_at: iso(run.updatedAt),
    run_started_at: iso(run.startedAt),
    run_attempt: run.runAttempt,
    actor: userJson(ctx, run.actor),
    triggering_actor: userJson(ctx, run.actor),
    jobs_url: `${api}/jobs`,
    logs_url: `${api}/logs`,
    artifacts_url: `${api}/artifacts`,
    cancel_url: `${api}/cancel`,
    rerun_url: `${api}/rerun`,
    workflow_url: `${ctx.url}/repos/${repo.fullName}/actions/workflows/${run.workflowId}`,
    check_suite_url: `${ctx.url}/repos/${repo.fullName}/check-suites/${run.id}`,
    head_commit: {
      id: run.headSha,
      tree_id: run.headSha,
      message: "",
      timestamp: iso(run.createdAt),
      author: null,
      committer: null,
    },
    repository: repoJson(ctx, repo),
    head_repository: repoJson(ctx, repo),
  };
}

export function artifactJson(
  ctx: JsonContext,
  repo: RepoRecord,
  artifact: ArtifactRecord,
  now: number,
): Json {
  const api = `${ctx.url}/repos/${repo.fullName}/actions/artifacts/${artifact.id}`;
  return {
    id: artifact.id,
    node_id: `A_${artifact.id}`,
    name: artifact.name,
    size_in_bytes: artifact.zip.length,
    url: api,
    archive_download_url: `${api}/zip`,
    expired: now >= artifact.expiresAt,
    created_at: iso(artifact.createdAt),
    updated_at: iso(artifact.createdAt),
    expires_at: iso(artifact.expiresAt),
    workflow_run: {
      id: artifact.runId,
      repository_id: repo.id,
      head_repository_id: repo.id,
      head_branch: repo.defaultBranch,
      head_sha: "",
    },
  };
}
