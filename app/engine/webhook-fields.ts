import { z } from "zod";
import { RESULT_CHECK_RUN_NAME } from "../../src/artifacts/result-check-run.ts";
import { RunIdentity } from "../github/judge-run-identity.ts";

/**
 * The fields of webhook payloads loom uses, checked with zod at the boundary. Everything else in a
 * payload is ignored (and stripped).
 */

const Login = z.object({ login: z.string(), type: z.string().optional() });

const Repository = z.object({
  id: z.number().int().optional(),
  name: z.string(),
  owner: z.object({ login: z.string() }),
  full_name: z.string(),
  default_branch: z.string().default("main"),
});

const Envelope = z.object({
  action: z.string(),
  installation: z.object({ id: z.number().int() }),
  repository: Repository,
  sender: Login,
});

/** A pull request as webhooks and `GET /repos/{o}/{r}/pulls/{n}` both carry it. */
export const PullFields = z.object({
  number: z.number().int(),
  state: z.string().optional(),
  merged: z.boolean().nullable().optional(),
  user: Login,
  labels: z.array(z.object({ name: z.string() })).default([]),
  head: z.object({
    ref: z.string(),
    sha: z.string(),
    // Where the head lives (null: a deleted fork); see `comesFromFork`.
    repo: z.object({ full_name: z.string(), id: z.number().int().optional() }).nullable(),
  }),
  base: z.object({ ref: z.string() }),
  /** GitHub's time of the last change; on a `synchronize` delivery, the push. */
  updated_at: z.string().optional(),
});
export type PullFields = z.infer<typeof PullFields>;

export const PullRequestDelivery = Envelope.extend({
  /** labeled/unlabeled: the label that changed. */
  label: z.object({ name: z.string() }).optional(),
  /** synchronize: the head before the push. */
  before: z.string().optional(),
  pull_request: PullFields,
});
export type PullRequestDelivery = z.infer<typeof PullRequestDelivery>;

export const IssueCommentDelivery = Envelope.extend({
  issue: z.object({ number: z.number().int(), pull_request: z.object({}).loose().optional() }),
  comment: z.object({
    id: z.number().int(),
    body: z.string().nullable().default(""),
    // GitHub always sends it: an approval by comment is pinned to the head at this time.
    created_at: z.string(),
  }),
});
export type IssueCommentDelivery = z.infer<typeof IssueCommentDelivery>;

export const CheckRunDelivery = Envelope.extend({
  check_run: z.object({
    id: z.number().int(),
    name: z.string(),
    external_id: z.string().nullable().default(""),
    head_sha: z.string(),
    pull_requests: z.array(z.object({ number: z.number().int() })).default([]),
  }),
  requested_action: z.object({ identifier: z.string() }).nullable().optional(),
});
export type CheckRunDelivery = z.infer<typeof CheckRunDelivery>;

/** The app GitHub names on the check runs a job token (`GITHUB_TOKEN`) creates. */
export const ACTIONS_APP_SLUG = "github-actions";

/**
 * A check run created by a workflow job (GitHub Actions' app) that may be a `loom result`
 * (`src/artifacts/result-check-run.ts`): its text is read, never trusted for more than a run loom
 * recorded.
 */
export const ResultCheckRunDelivery = Envelope.extend({
  check_run: z.object({
    id: z.number().int(),
    name: z.literal(RESULT_CHECK_RUN_NAME),
    head_sha: z.string(),
    app: z.object({ slug: z.literal(ACTIONS_APP_SLUG) }),
    output: z.object({ text: z.string().nullable().default(null) }),
  }),
});
export type ResultCheckRunDelivery = z.infer<typeof ResultCheckRunDelivery>;

/** Whether a `check_run` payload is a `loom result` by GitHub Actions (cheap: no text parsed). */
export function isResultCheckRun(payload: unknown): boolean {
  const run = (payload as { check_run?: { name?: unknown; app?: { slug?: unknown } | null } } | null)
    ?.check_run;
  return run?.name === RESULT_CHECK_RUN_NAME && run.app?.slug === ACTIONS_APP_SLUG;
}

/**
 * "Re-run all checks" / "Re-run failed checks" (GitHub sends `check_suite.rerequested` only to
 * the App that owns the suite); `requested`, sent for every push. `pull_requests` is empty and `head_branch` null when the head is
 * in a fork.
 */
export const CheckSuiteDelivery = Envelope.extend({
  check_suite: z.object({
    id: z.number().int(),
    head_sha: z.string(),
    /** The pushed branch (`requested` comes for every push: the default branch's re-read the caller). */
    head_branch: z.string().nullable().default(null),
    pull_requests: z.array(z.object({ number: z.number().int() })).default([]),
  }),
});
export type CheckSuiteDelivery = z.infer<typeof CheckSuiteDelivery>;

export const WorkflowRunDelivery = Envelope.extend({
  // Who and what started the run: a run found by its title must be loom's own dispatch.
  workflow_run: RunIdentity.extend({
    status: z.string().nullable(),
    conclusion: z.string().nullable(),
    html_url: z.string().default(""),
  }),
});
export type WorkflowRunDelivery = z.infer<typeof WorkflowRunDelivery>;

export type RepoOf = { owner: string; repo: string; installationId: number; defaultBranch: string };

export function readRepo(delivery: z.infer<typeof Envelope>): RepoOf {
  return {
    owner: delivery.repository.owner.login,
    repo: delivery.repository.name,
    installationId: delivery.installation.id,
    defaultBranch: delivery.repository.default_branch,
  };
}

/** GitHub's ISO time as ms, or undefined when absent or unreadable. */
export function readTime(iso: string | undefined): number | undefined {
  if (iso === undefined) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}
