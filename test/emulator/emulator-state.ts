import type { AppRegistration } from "./app-registration.ts";
import type { GitRepo } from "./create-git-repo.ts";
import type { Permissions } from "./token-permissions.ts";

/**
 * Everything the emulator remembers besides git: plain records a test may read (and, when it plays
 * GitHub itself, change). Times are epoch milliseconds from the emulator's clock.
 */

export type Role = "admin" | "maintain" | "write" | "triage" | "read" | "none";

export type RepoRecord = {
  id: number;
  owner: string;
  name: string;
  fullName: string;
  defaultBranch: string;
  installationId: number;
  private: boolean;
  git: GitRepo;
  /** Workflow file path (`.github/workflows/x.yml`) → workflow id, assigned on first use. */
  workflows: Map<string, number>;
  /** The parent's full name when this repository is a fork (`fork-repo.ts`). */
  forkOf?: string;
};

export type PullRecord = {
  repo: string;
  id: number;
  number: number;
  title: string;
  body: string;
  user: string;
  headRef: string;
  /**
   * The head repository's full name (another name = a fork: its own repository, `fork-repo.ts`,
   * where `headRef` lives; the base repository holds the head as `refs/pull/<number>/head`).
   */
  headRepo: string;
  baseRef: string;
  /** The head commit when the pull request was closed, or a fork's (open ones from the repository itself follow their branch). */
  headSha: string;
  state: "open" | "closed";
  merged: boolean;
  labels: string[];
  createdAt: number;
  updatedAt: number;
};

export type CheckRunAction = { label: string; description: string; identifier: string };

export type CheckRunRecord = {
  repo: string;
  id: number;
  name: string;
  headSha: string;
  status: "queued" | "in_progress" | "completed" | "waiting" | "requested" | "pending";
  conclusion: string | null;
  externalId: string | null;
  detailsUrl: string | null;
  output: { title: string | null; summary: string | null; text: string | null; annotationsCount: number };
  actions: CheckRunAction[];
  startedAt: number;
  completedAt: number | null;
  /** Who created it (the app's bot login). */
  app: string;
  /** The check suite it belongs to: one per app and head SHA, as on GitHub. */
  checkSuiteId: number;
};

/** A check suite: GitHub keeps one per app and commit, holding that app's check runs on it. */
export type CheckSuiteRecord = {
  repo: string;
  id: number;
  headSha: string;
  /** The app's bot login (as `CheckRunRecord.app`). */
  app: string;
  createdAt: number;
  updatedAt: number;
};

export type CommentRecord = {
  repo: string;
  id: number;
  issueNumber: number;
  body: string;
  user: string;
  createdAt: number;
  updatedAt: number;
};

export type ReactionRecord = {
  repo: string;
  id: number;
  commentId: number;
  content: string;
  user: string;
  createdAt: number;
};

export type RunStatus = "queued" | "in_progress" | "completed";

export type RunRecord = {
  repo: string;
  id: number;
  workflowId: number;
  workflowPath: string;
  /** The workflow's `name:`. */
  name: string;
  /** The rendered `run-name:` (what GitHub shows and `display_title` carries). */
  displayTitle: string;
  /** What started it: loom's dispatches are `workflow_dispatch`; other workflows' runs may be anything. */
  event: "workflow_dispatch" | "push" | "pull_request" | "schedule";
  headBranch: string;
  headSha: string;
  inputs: Record<string, string>;
  actor: string;
  status: RunStatus;
  conclusion: string | null;
  cancelRequested: boolean;
  runAttempt: number;
  createdAt: number;
  updatedAt: number;
  startedAt: number;
};

export type ArtifactRecord = {
  repo: string;
  id: number;
  runId: number;
  name: string;
  zip: Buffer;
  createdAt: number;
  expiresAt: number;
  /**
   * Uploaded with the artifact API v3 (GHES, `@actions/artifact` 1.x): GitHub's REST API lists
   * such artifacts only once their run has completed, never mid-run.
   */
  listedAfterRunCompletes?: boolean;
};

/**
 * A token the emulator issued:
 * - `job`: a job's `GITHUB_TOKEN` (acts as `github-actions[bot]`), for its run's repository only,
 *   with its job's permissions; it stops working when its job ends (`ended`: 401 Bad credentials);
 * - `installation`: the App's installation token, with the App's permissions when it was issued;
 * - `person`: acts as `login` with their repository role.
 */
export type TokenRecord =
  | { kind: "job"; repo: string; runId: number; permissions: Permissions; ended: boolean }
  | { kind: "installation"; permissions: Permissions }
  | { kind: "person"; login: string };

export type EmulatorState = {
  repos: Map<string, RepoRecord>;
  pulls: PullRecord[];
  checkRuns: CheckRunRecord[];
  checkSuites: CheckSuiteRecord[];
  comments: CommentRecord[];
  reactions: ReactionRecord[];
  runs: RunRecord[];
  artifacts: ArtifactRecord[];
  /** `owner/repo` → login → role. */
  permissions: Map<string, Map<string, Role>>;
  /** Issued tokens (job, installation and person tokens) → what they are. */
  tokens: Map<string, TokenRecord>;
  /**
   * What the App's installations hold (its manifest's `default_permissions`, as GitHub grants them
   * on installation). Tokens the emulator never issued act as the App with these.
   */
  appPermissions: Permissions;
  /** One-time artifact download tokens → artifact id and expiry. */
  downloads: Map<string, { artifactId: number; expiresAt: number }>;
  /** Issued `ACTIONS_RUNTIME_TOKEN`s → the run whose jobs hold them. */
  runtimeTokens: Map<string, number>;
  /** Apps registered through the manifest flow (`app-registration.ts`). */
  appRegistrations: AppRegistration[];
  nextId: number;
};

export function createEmulatorState(input: { appPermissions: Permissions }): EmulatorState {
  return {
    repos: new Map(),
    pulls: [],
    checkRuns: [],
    checkSuites: [],
    comments: [],
    reactions: [],
    runs: [],
    artifacts: [],
    permissions: new Map(),
    tokens: new Map(),
    appPermissions: input.appPermissions,
    downloads: new Map(),
    appRegistrations: [],
    runtimeTokens: new Map(),
    nextId: 1000,
  };
}

/** A fresh id, unique across every kind of record. */
export function takeId(state: EmulatorState): number {
  state.nextId += 1;
  return state.nextId;
}
