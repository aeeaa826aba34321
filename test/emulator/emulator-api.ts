import type { Faults } from "./create-faults.ts";
import type { Person } from "./create-person.ts";
import type { RunConclusion, RunControl, Runner } from "./create-run-control.ts";
import type { Delivery } from "./create-webhook-sender.ts";
import type { ArtifactRecord, EmulatorState, RepoRecord, Role, RunRecord } from "./emulator-state.ts";
import type { RecordedRequest, Violation } from "./handle-request.ts";
import type { EmulatorSettings } from "./route-reply.ts";

/** The emulator's public API: what `startEmulator(options)` takes and gives. */

export type RepoSeed = {
  owner: string;
  name: string;
  defaultBranch?: string;
  installationId?: number;
  private?: boolean;
  /** Files of the first commit on the default branch. */
  files?: Record<string, string>;
};

export type EmulatorOptions = {
  /** Default: `acme/widgets`, branch `main`, installation 4242, a README. */
  repos?: RepoSeed[];
  /** Where webhooks go (the app's webhook URL); null records them without sending. */
  webhookUrl?: string | null;
  webhookSecret?: string;
  appId?: number;
  /** The app's slug; its bot login is `<slug>[bot]`. Default `loom`. */
  appSlug?: string;
  /** Collaborator roles by login (every repository); others get `defaultRole` (default `read`). */
  permissions?: Record<string, Role>;
  defaultRole?: Role;
  runner?: Runner;
  /**
   * The App's `default_permissions` (GitHub's names: `pull_requests: write`), what its
   * installation tokens hold. Default: loom's `app.yml`'s. Registering an App through the manifest
   * flow replaces them with its manifest's.
   */
  appPermissions?: Record<string, string>;
  /** The emulator's clock (epoch ms): timestamps, token and download expiry. Default `Date.now`. */
  now?: () => number;
  settings?: Partial<EmulatorSettings>;
  /**
   * Play GitHub Enterprise Server (`settings.ghes`): jobs get a GHES server URL, the REST API at
   * `/api/v3`, and the artifact API v3 at `ACTIONS_RUNTIME_URL` instead of the results service.
   */
  ghes?: boolean;
  /** Called for every webhook as it is sent. */
  onDelivery?: (delivery: Delivery) => void;
};

export type Emulator = {
  /** The API base URL (`http://127.0.0.1:<port>`): give it to Octokit as `baseUrl`. */
  url: string;
  /** The temp folder holding the bare repositories. */
  dir: string;
  botLogin: string;
  state: EmulatorState;
  requests: RecordedRequest[];
  /** Requests GitHub would refuse or the emulator cannot answer; a test asserts this stays empty. */
  violations: Violation[];
  deliveries: Delivery[];
  faults: Faults;
  settings: EmulatorSettings;
  /** Errors thrown by runner callbacks. */
  runnerErrors: Error[];
  /** A repository by full name (default: the first), with its bare git repository at `repo().git.dir`. */
  repo(fullName?: string): RepoRecord;
  /**
   * Deletes a repository (a fork whose pull request stays open: GitHub then sends `head.repo: null`
   * and keeps the head as `refs/pull/<n>/head` in the base repository).
   */
  deleteRepo(fullName: string): Promise<void>;
  /** Act as a person (`as("alice").openPullRequest(…)`), on the first repository unless named. */
  as(login: string, fullName?: string): Person;
  setPermission(login: string, role: Role, fullName?: string): void;
  /** The clone URL of a repository (git smart HTTP on the emulator; pushes fire `synchronize`). */
  cloneUrl(fullName?: string): string;
  /**
   * The environment GitHub gives a job of run `runId` (for the runner side): `GITHUB_*`, a job
   * token, and `ACTIONS_RUNTIME_TOKEN` + `ACTIONS_RESULTS_URL` so `@actions/artifact` uploads here
   * (on GHES: `ACTIONS_RUNTIME_URL`, the artifact API v3). `permissions` are the job's effective
   * `permissions:` (GitHub's names and levels; `{}` = `permissions: {}`, nothing but metadata;
   * undefined = a job without `permissions:`, GitHub's restricted default: contents and packages
   * read). The token holds exactly those, in the run's repository only (`route-access.ts`), until
   * `endJob(token)` or the run completes (then 401 Bad credentials). Throws on a permission name
   * or level GitHub refuses in a workflow.
   */
  runnerEnv(runId: number, permissions?: Readonly<Record<string, string>>): Record<string, string>;
  /** The job holding `token` (a `GITHUB_TOKEN` from `runnerEnv`) has ended: the token stops working. */
  endJob(token: string): void;
  /**
   * A token that acts as `login` in REST calls and git, with their repository role (tokens the
   * emulator does not know act as the App's installation, with the App's permissions).
   */
  tokenFor(login: string): string;
  /**
   * What GitHub does when a person confirms an App manifest posted by a setup page (the manifest
   * flow): registers the App and returns the code and the `redirect_url?code=` the browser follows.
   * Exchanging the code makes the registered App this emulator's App (id, key, webhook URL, secret).
   */
  registerApp(manifest: string): { code: string; redirectUrl: string };
  /**
   * Where webhooks go from now on: one URL, null (recorded, not sent), or several app instances
   * behind a load balancer (round-robin; every `duplicateEvery`-th delivery also reaches the next
   * instance with the same `X-GitHub-Delivery`, as GitHub's redeliveries and retries do).
   */
  setWebhookTarget(
    url: string | string[] | null,
    secret?: string,
    fanOut?: { duplicateEvery?: number },
  ): void;
  setRunner(runner: Runner | null): void;
  runs: {
    find(id: number): RunRecord;
    start(id: number): RunRecord;
    complete(id: number, conclusion: RunConclusion): RunRecord;
    /** Someone else's run (own workflow file, event, actor, run name), not handed to the runner. */
    createOther(input: Parameters<RunControl["createOther"]>[1], fullName?: string): RunRecord;
  };
  /** Adds an artifact (a real zip of `files`) to a run, as an upload from the job would. */
  addArtifact(
    runId: number,
    name: string,
    files: Record<string, string | Uint8Array>,
    options?: { retentionDays?: number },
  ): ArtifactRecord;
  /** After pushes straight into a bare repository: fires `synchronize` for pull requests whose head moved. */
  refreshRefs(fullName?: string): Promise<void>;
  /** Waits until runner callbacks returned and every webhook was sent. */
  settle(): Promise<void>;
  /** Throws listing every violation (call in a test's end). */
  assertNoViolations(): void;
  close(): Promise<void>;
};
