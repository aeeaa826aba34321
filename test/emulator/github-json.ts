import type {
  ArtifactRecord,
  CheckRunRecord,
  CommentRecord,
  PullRecord,
  RepoRecord,
  RunRecord,
} from "./emulator-state.ts";

/**
 * GitHub-shaped JSON for the emulator's records, shared by REST answers and webhook payloads:
 * the fields loom reads, plus enough of the rest for clients that look.
 */

type Json = Record<string, unknown>;

export type JsonContext = { url: string; appId: number; appSlug: string };

const HTML = "https://github.emulator.invalid";

export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function idOfLogin(login: string): number {
  let hash = 7;
  for (const char of login) hash = (hash * 31 + char.charCodeAt(0)) % 9_000_000;
  return 1_000_000 + hash;
}

export function userJson(ctx: JsonContext, login: string): Json {
  const id = idOfLogin(login);
  const api = `${ctx.url}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id,
    node_id: `U_${id}`,
    avatar_url: `${HTML}/avatars/${id}`,
    gravatar_id: "",
    url: api,
    html_url: `${HTML}/${encodeURIComponent(login)}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: login.endsWith("[bot]") ? "Bot" : "User",
    site_admin: false,
  };
}

/** The `{name}_url` fields every repository object carries: `[field, path under the repo's API URL]`. */
const REPO_URLS: [string, string][] = [
  ["archive_url", "/{archive_format}{/ref}"],
  ["assignees_url", "/assignees{/user}"],
  ["blobs_url", "/git/blobs{/sha}"],
  ["branches_url", "/branches{/branch}"],
  ["collaborators_url", "/collaborators{/collaborator}"],
  ["comments_url", "/comments{/number}"],
  ["commits_url", "/commits{/sha}"],
  ["compare_url", "/compare/{base}...{head}"],
  ["contents_url", "/contents/{+path}"],
  ["contributors_url", "/contributors"],
  ["deployments_url", "/deployments"],
  ["downloads_url", "/downloads"],
  ["events_url", "/events"],
  ["forks_url", "/forks"],
  ["git_commits_url", "/git/commits{/sha}"],
  ["git_refs_url", "/git/refs{/sha}"],
  ["git_tags_url", "/git/tags{/sha}"],
  ["hooks_url", "/hooks"],
  ["issue_comment_url", "/issues/comments{/number}"],
  ["issue_events_url", "/issues/events{/number}"],
  ["issues_url", "/issues{/number}"],
  ["keys_url", "/keys{/key_id}"],
  ["labels_url", "/labels{/name}"],
  ["languages_url", "/languages"],
  ["merges_url", "/merges"],
  ["milestones_url", "/milestones{/number}"],
  ["notifications_url", "/notifications{?since,all,participating}"],
  ["pulls_url", "/pulls{/number}"],
  ["releases_url", "/releases{/id}"],
  ["stargazers_url", "/stargazers"],
  ["statuses_url", "/statuses/{sha}"],
  ["subscribers_url", "/subscribers"],
  ["subscription_url", "/subscription"],
  ["tags_url", "/tags"],
  ["teams_url", "/teams"],
  ["trees_url", "/git/trees{/sha}"],
];

/** The GitHub App (loom) as check runs and `GET /app` show it. */
export function appJson(ctx: JsonContext, owner: string): Json {
  return {
    id: ctx.appId,
    slug: ctx.appSlug,
    node_id: `A_${ctx.appId}`,
    name: ctx.appSlug,
    owner: userJson(ctx, owner),
    description: null,
    external_url: "https://loom.invalid",
    html_url: `${HTML}/apps/${ctx.appSlug}`,
    created_at: iso(0),
    updated_at: iso(0),
    permissions: {
      checks: "write",
      contents: "write",
      actions: "write",
      issues: "write",
      pull_requests: "write",
    },
    events: ["pull_request", "issue_comment", "check_run", "workflow_run"],
  };
}

export function repoJson(ctx: JsonContext, repo: RepoRecord): Json {
  const api = `${ctx.url}/repos/${repo.fullName}`;
  const html = `${HTML}/${repo.fullName}`;
  return {
    id: repo.id,
    node_id: `R_${repo.id}`,
    name: repo.name,
    full_name: repo.fullName,
    private: repo.private,
    owner: { ...userJson(ctx, repo.owner), type: "Organization" },
    html_url: html,
    description: null,
    fork: false,
    url: api,
    ...Object.fromEntries(REPO_URLS.map(([field, suffix]) => [field, `${api}${suffix}`])),
    clone_url: `${html}.git`,
    git_url: `git://github.emulator.invalid/${repo.fullName}.git`,
    ssh_url: `git@github.emulator.invalid:${repo.fullName}.git`,
    svn_url: html,
    mirror_url: null,
    homepage: null,
    language: null,
    license: null,
    size: 0,
    default_branch: repo.defaultBranch,
    visibility: repo.private ? "private" : "public",
    forks: 0,
    forks_count: 0,
    open_issues: 0,
    open_issues_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    network_count: 0,
    subscribers_count: 0,
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: false,
    has_discussions: false,
    archived: false,
    disabled: false,
    pushed_at: iso(0),
    created_at: iso(0),
    updated_at: iso(0),
    permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
  };
}

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
): Json {
  const api = `${ctx.url}/repos/${repo.fullName}`;
  const [headOwner = repo.owner] = pull.headRepo.split("/");
  const headRepo =
    pull.headRepo === repo.fullName
      ? repoJson(ctx, repo)
      : { ...repoJson(ctx, repo), full_name: pull.headRepo, fork: true, owner: userJson(ctx, headOwner) };
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
    details_url: run.detailsUrl,
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
    check_suite: { id: run.id + 1_000_000 },
    app: appJson(ctx, repo.owner),
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
