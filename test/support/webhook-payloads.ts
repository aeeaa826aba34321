import { createRequire } from "node:module";
import type { EmitterWebhookEvent } from "@octokit/webhooks";

/**
 * Webhook payloads built from GitHub's own examples (`@octokit/webhooks-examples`): a real example
 * of the event and action, with only the fields a test cares about overridden. Every payload is
 * moved to one test repository and installation so a test reads like the pull request it plays.
 */

type Json = Record<string, unknown>;
type Example = { name: string; actions: string[]; examples: Json[] };

const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples/api.github.com/index.json") as Example[];

export const REPO = {
  owner: "acme",
  repo: "widgets",
  fullName: "acme/widgets",
  defaultBranch: "main",
  installationId: 4242,
} as const;

export type User = { login: string; type?: "User" | "Bot" };

/** The id of a fork's head repository in pull request payloads (the base keeps the example's). */
const FORK_REPO_ID = 286_853_002;

/** A real example of `name` with `action` (any example of `name` when none has it), deep-copied. */
export function exampleOf(name: string, action: string): Json {
  const group = examples.find((entry) => entry.name === name);
  if (group === undefined) throw new Error(`no webhook example named ${name}`);
  const example =
    group.examples.find((candidate) => candidate["action"] === action && "installation" in candidate) ??
    group.examples.find((candidate) => candidate["action"] === action) ??
    group.examples[0];
  if (example === undefined) throw new Error(`no webhook example for ${name}.${action}`);
  return structuredClone(example);
}

/** Merges `override` into `base`: objects field by field, anything else (arrays too) replaced. */
export function deepMerge(base: Json, override: Json): Json {
  const merged: Json = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const current = merged[key];
    merged[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return merged;
}

function isPlainObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function userJson(user: User, id = 1000): Json {
  return { login: user.login, id, type: user.type ?? "User" };
}

function repositoryJson(): Json {
  return {
    name: REPO.repo,
    full_name: REPO.fullName,
    default_branch: REPO.defaultBranch,
    owner: { login: REPO.owner, type: "Organization" },
    fork: false,
  };
}

/** The shared part of every payload: repository, installation and sender. */
function envelope(name: string, action: string, sender: User, override: Json): Json {
  return deepMerge(exampleOf(name, action), {
    action,
    repository: repositoryJson(),
    installation: { id: REPO.installationId, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uNDI0Mg==" },
    sender: userJson(sender),
    ...override,
  });
}

export type PullOptions = {
  number: number;
  headSha: string;
  headRef?: string;
  author?: User;
  sender?: User;
  /** The head repository's full name; another name makes the pull request come from a fork. */
  headRepo?: string;
  labels?: string[];
  merged?: boolean;
  /** For labeled/unlabeled: the label that changed. */
  label?: string;
  /** For synchronize: the previous head. */
  before?: string;
};

export function pullRequestPayload(action: string, options: PullOptions): Json {
  const author = options.author ?? { login: "alice" };
  const headRepo = options.headRepo ?? REPO.fullName;
  const [headOwner = REPO.owner, headName = REPO.repo] = headRepo.split("/");
  const isFork = headRepo.toLowerCase() !== REPO.fullName.toLowerCase();
  const pull: Json = {
    number: options.number,
    state: action === "closed" ? "closed" : "open",
    merged: options.merged ?? false,
    user: userJson(author),
    labels: (options.labels ?? []).map((name, index) => ({ id: 9000 + index, name, color: "ededed" })),
    head: {
      ref: options.headRef ?? "feature/plan",
      sha: options.headSha,
      label: `${headOwner}:${options.headRef ?? "feature/plan"}`,
      repo: {
        // A fork is a repository of its own: its own id (GitHub compares repositories by id; the
        // published example's head repository is the base's, id and all).
        ...(isFork ? { id: FORK_REPO_ID } : {}),
        name: headName,
        full_name: headRepo,
        owner: { login: headOwner },
        fork: isFork,
      },
    },
    base: { ref: REPO.defaultBranch, repo: repositoryJson() },
  };
  const extra: Json = { number: options.number, pull_request: pull };
  if (options.label !== undefined) extra["label"] = { id: 9999, name: options.label, color: "ededed" };
  if (action === "synchronize") {
    extra["before"] = options.before ?? "0".repeat(40);
    extra["after"] = options.headSha;
  }
  return envelope("pull_request", action, options.sender ?? author, extra);
}

export type CommentOptions = {
  number: number;
  body: string;
  sender: User;
  commentId?: number;
  action?: string;
  /** GitHub's `comment.created_at` (default: now). */
  createdAt?: string;
};

export function issueCommentPayload(options: CommentOptions): Json {
  const action = options.action ?? "created";
  return envelope("issue_comment", action, options.sender, {
    issue: {
      number: options.number,
      pull_request: { url: `https://api.github.com/repos/${REPO.fullName}/pulls/${options.number}` },
      state: "open",
    },
    comment: {
      id: options.commentId ?? 777,
      body: options.body,
      user: userJson(options.sender),
      created_at: options.createdAt ?? new Date().toISOString(),
    },
  });
}

export type CheckRunOptions = {
  id: number;
  name: string;
  externalId: string;
  headSha: string;
  pullNumber: number;
  sender: User;
  /** For requested_action: the button's identifier. */
  identifier?: string;
};

export function checkRunPayload(action: "requested_action" | "rerequested", options: CheckRunOptions): Json {
  const override: Json = {
    check_run: {
      id: options.id,
      name: options.name,
      external_id: options.externalId,
      head_sha: options.headSha,
      status: "completed",
      conclusion: "failure",
      pull_requests: [
        { number: options.pullNumber, head: { sha: options.headSha }, base: { ref: REPO.defaultBranch } },
      ],
    },
  };
  if (action === "requested_action")
    override["requested_action"] = { identifier: options.identifier ?? "retry" };
  return envelope("check_run", action, options.sender, override);
}

export type CheckSuiteOptions = { id: number; headSha: string; pullNumbers: number[]; sender: User };

/** "Re-run all checks" or "Re-run failed checks" on a pull request: GitHub asks the suite's App again. */
export function checkSuitePayload(options: CheckSuiteOptions): Json {
  return envelope("check_suite", "rerequested", options.sender, {
    check_suite: {
      id: options.id,
      head_sha: options.headSha,
      status: "completed",
      conclusion: "failure",
      pull_requests: options.pullNumbers.map((number) => ({
        number,
        head: { sha: options.headSha },
        base: { ref: REPO.defaultBranch },
      })),
    },
  });
}

/**
 * A push, as GitHub tells every App with Checks: write: a new check suite for the pushed commit
 * (`check_suite.requested`, from GitHub's own example of a push to the default branch).
 */
export function pushSuitePayload(options: {
  id: number;
  headBranch: string;
  headSha: string;
  sender?: User;
}): Json {
  return envelope("check_suite", "requested", options.sender ?? { login: "alice" }, {
    check_suite: {
      id: options.id,
      head_branch: options.headBranch,
      head_sha: options.headSha,
      pull_requests: [],
    },
  });
}

export type WorkflowRunOptions = {
  id: number;
  /** The run name (`run-name:`), where loom's stage workflow puts the dispatch key. */
  displayTitle: string;
  conclusion?: "success" | "failure" | "cancelled" | "timed_out" | null;
  sender?: User;
};

export function workflowRunPayload(action: "in_progress" | "completed", options: WorkflowRunOptions): Json {
  return envelope("workflow_run", "completed", options.sender ?? { login: "loom-app[bot]", type: "Bot" }, {
    action,
    workflow_run: {
      id: options.id,
      name: "loom stage",
      display_title: options.displayTitle,
      event: "workflow_dispatch",
      head_branch: REPO.defaultBranch,
      status: action === "completed" ? "completed" : "in_progress",
      conclusion: action === "completed" ? (options.conclusion ?? "success") : null,
      pull_requests: [],
      run_attempt: 1,
    },
  });
}

let deliveries = 0;

/** A delivery for `probot.receive`: a fresh `X-GitHub-Delivery` id unless one is given. */
export function delivery(name: string, payload: Json, id?: string): EmitterWebhookEvent {
  deliveries += 1;
  return { id: id ?? `delivery-${deliveries}`, name, payload } as unknown as EmitterWebhookEvent;
}

export type ResultCheckRunOptions = {
  id: number;
  headSha: string;
  /** `output.text`: a `loom result`'s JSON, or anything else. */
  text: string | null;
  name?: string;
  /** The app GitHub names on the run (default GitHub Actions, as for a job token's check run). */
  app?: { id: number; slug: string };
  action?: "created" | "completed";
};

/** A check run a workflow job created with its `GITHUB_TOKEN` (`loom result` by default), as GitHub reports it to every App with checks permission. */
export function resultCheckRunPayload(options: ResultCheckRunOptions): Json {
  const app = options.app ?? { id: 15368, slug: "github-actions" };
  return envelope(
    "check_run",
    options.action ?? "created",
    { login: "github-actions[bot]" },
    {
      check_run: {
        id: options.id,
        name: options.name ?? "loom result",
        external_id: "",
        head_sha: options.headSha,
        status: "completed",
        conclusion: "neutral",
        output: { title: "t", summary: "s", text: options.text, annotations_count: 0 },
        app: { ...app, node_id: `A_${app.id}`, name: app.slug },
        pull_requests: [],
      },
    },
  );
}
