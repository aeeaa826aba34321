import { createPrivateKey } from "../support/create-private-key.ts";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { afterEach } from "node:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Probot, ProbotOctokit } from "probot";
import pino from "pino";
import { createLoomApp } from "../../app/index.ts";
import type { Engine } from "../../app/engine/create-engine.ts";
import type { GitHubCache } from "../../app/github/github-cache.ts";
import type { LoomMetrics } from "../../app/metrics/create-metrics.ts";
import { openStore } from "../../app/store/open-store.ts";
import type { Store } from "../../app/store/store.ts";
import type { StageResult } from "../../src/artifacts/stage-result.ts";
import { LOOM_RELEASES } from "../../src/release/loom-releases.ts";
import type { LoomRelease } from "../../src/release/loom-releases.ts";
import { MAIN_CONTRACT } from "../../src/release/stage-contract.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import {
  checkRunPayload,
  delivery,
  pullRequestPayload,
  REPO,
  workflowRunPayload,
} from "../support/webhook-payloads.ts";
import { createFakeGitHub, nextSha } from "./fake-github.ts";
import type { FakeGitHub } from "./fake-github.ts";

const privateKey = createPrivateKey();

export const PLAN_PATH = "doc/plans/PLAN-diamond.md";
export const BOT = "loom-app[bot]";

/** a → (b, c) → d */
export const DIAMOND_PLAN = `# Plan: Diamond

<!-- loom METADATA -->

\`\`\`yaml
loom:
  version: 1
  stages:
    - id: a
      name: Foundation
      dependencies: []
      acceptance: ["npm test"]
    - id: b
      name: Left
      dependencies: [a]
      acceptance: ["npm test"]
    - id: c
      name: Right
      dependencies: [a]
      acceptance: ["npm test"]
    - id: d
      name: Join
      dependencies: [b, c]
      acceptance: ["npm test"]
\`\`\`

<!-- END loom METADATA -->
`;

/** The caller workflow loom dispatches (`workflow: loom.yml`, the default), on the default branch. */
export const CALLER_PATH = ".github/workflows/loom.yml";

/**
 * A release of loom that speaks this App's contract, added to the harness's release table: the
 * default caller pins it, so the App serves stages as today's stage workflow expects. (Until a
 * release of this contract is cut, no real pin could be current; after, this stands in for it.)
 */
export const CURRENT_RELEASE: LoomRelease = {
  version: "99.0.0",
  repository: "loom-dev/loom",
  sha: "c0ffee0000000000000000000000000000000004",
  contract: MAIN_CONTRACT,
};

/** examples/loom.yml (the quick start's caller) pinning `repository`'s stage workflow at `ref`. */
export function callerPinning(ref: string, repository = "loom-dev/loom"): string {
  const example = readFileSync(join(import.meta.dirname, "../../examples/loom.yml"), "utf8");
  return example.replace(
    /uses: [^\s]+\/\.github\/workflows\/loom-stage\.yml@\S+/,
    `uses: ${repository}/.github/workflows/loom-stage.yml@${ref}`,
  );
}

export type Instance = { probot: Probot; engine: Engine };

export type Harness = {
  probot: Probot;
  store: Store;
  engine: Engine;
  gh: GitHubMock;
  fake: FakeGitHub;
  headSha: string;
  /** Another app replica on the given store, talking to the same fake GitHub. */
  addInstance(store: Store, workerId: string): Promise<Instance>;
  /** Receives a webhook and processes everything it leads to. */
  receive(name: string, payload: Record<string, unknown>, id?: string): Promise<void>;
  /** Asserts the mock saw only valid, answered requests; closes everything. */
  finish(): Promise<void>;
  /** Closes without asserting (after a failure). */
  cleanup(): Promise<void>;
};

export type HarnessOptions = {
  store?: Store;
  planText?: string;
  workerId?: string;
  clock?: () => number;
  /** The App's metrics (default: its own, which the test cannot read). */
  metrics?: LoomMetrics;
  /** The App's ETag cache, as `npm start` gives it (default: none, so no conditional requests). */
  cache?: GitHubCache;
  /**
   * The caller workflow on the default branch (default: `callerPinning(CURRENT_RELEASE.sha)`);
   * null: none.
   */
  caller?: string | null;
};

/** The App's release table in the harness: loom's own, and `CURRENT_RELEASE`. */
export const HARNESS_RELEASES: readonly LoomRelease[] = [...LOOM_RELEASES, CURRENT_RELEASE];

export function createProbot(): Probot {
  return new Probot({
    appId: 1,
    privateKey,
    log: pino({ level: process.env["LOOM_TEST_LOG"] ?? "silent" }),
    // The function form: Probot layers its own throttle options over plain defaults, which would
    // space every write a second apart.
    Octokit: ProbotOctokit.defaults((options: Record<string, unknown>) => ({
      ...options,
      retry: { enabled: false },
      throttle: { enabled: false },
    })),
  });
}

/**
 * Call once at a test file's top level: opens a temporary store per call, each closed and removed
 * after the test that opened it.
 */
export function useTempStores(): () => Promise<Store> {
  const opened: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of opened.splice(0).reverse()) await close();
  });
  return async () => {
    const { store, close } = await openTempStore();
    opened.push(close);
    return store;
  };
}

/** A store on a temporary SQLite file, for a test to wrap; `close` closes it and removes the file. */
export async function openTempStore(): Promise<{ store: Store; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "loom-store-"));
  const store = await openStore({ sqlitePath: join(dir, "loom.sqlite") });
  return {
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A loom app on a temporary SQLite store, with GitHub faked for acme/widgets. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "loom-app-"));
  const store = options.store ?? (await openStore({ sqlitePath: join(dir, "loom.sqlite") }));
  const gh = mockGitHub();
  const fake = createFakeGitHub(gh);
  const headSha = nextSha();
  fake.refs.set("main", nextSha());
  fake.refs.set("feature/plan", headSha);
  fake.files.set(`${headSha}:${PLAN_PATH}`, options.planText ?? DIAMOND_PLAN);
  fake.pullFiles.set(1, ["README.md", PLAN_PATH]);
  fake.roles.set("alice", "write");
  const caller = options.caller === undefined ? callerPinning(CURRENT_RELEASE.sha) : options.caller;
  if (caller !== null) fake.files.set(`${REPO.defaultBranch}:${CALLER_PATH}`, caller);
  let time = Date.UTC(2026, 10, 22, 0, 0, 0);
  const clock = options.clock ?? (() => (time += 1000));
  const { probot, engine: loaded } = await loadInstance(
    store,
    options.workerId ?? "test-worker",
    clock,
    options.metrics,
    options.cache,
  );
  const close = async () => {
    fake.close();
    if (options.store === undefined) await store.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    probot,
    store,
    engine: loaded,
    gh,
    fake,
    headSha,
    addInstance: (other, workerId) => loadInstance(other, workerId, clock),
    receive: async (name, payload, id) => {
      await probot.receive(delivery(name, payload, id));
      await loaded.drain();
    },
    finish: async () => {
      await close();
      if (fake.unhandled.length > 0)
        throw new Error(`requests the fake does not know: ${fake.unhandled.join(", ")}`);
      gh.done();
    },
    cleanup: async () => {
      gh.cleanup();
      await close();
    },
  };
}

/** A Probot app with loom loaded on `store`; its engine is drained by the test. */
export async function loadInstance(
  store: Store,
  workerId: string,
  now: () => number,
  metrics?: LoomMetrics,
  cache?: GitHubCache,
): Promise<Instance> {
  const probot = createProbot();
  let engine: Engine | undefined;
  await probot.load(
    createLoomApp({
      store,
      now,
      workerId,
      botLogin: BOT,
      autoDrain: false,
      releases: HARNESS_RELEASES,
      sleep: () => Promise.resolve(),
      ...(metrics === undefined ? {} : { metrics }),
      ...(cache === undefined ? {} : { cache }),
      onEngine: (created) => {
        engine = created;
      },
    }),
  );
  if (engine === undefined) throw new Error("the app did not create its engine");
  return { probot, engine };
}

/** The `workflow_run` webhook GitHub sends for the run of `dispatch` (its title carries loom's key). */
export function runWebhook(
  dispatch: FakeGitHub["dispatches"][number],
  action: "in_progress" | "completed",
  conclusion?: "success" | "failure",
) {
  return workflowRunPayload(action, {
    id: dispatch.runId,
    displayTitle: `loom ${dispatch.inputs["key"]}`,
    ...(conclusion === undefined ? {} : { conclusion }),
  });
}

/**
 * The run of `dispatch` ends green with `result` (its `loom-result`), told as GitHub tells it: the
 * run's `in_progress` and `completed` webhooks, each processed before this returns.
 */
export async function completeRun(
  harness: Harness,
  dispatch: FakeGitHub["dispatches"][number],
  result: StageResult,
): Promise<void> {
  harness.fake.finishRun(dispatch.runId, "success", result);
  await harness.receive("workflow_run", runWebhook(dispatch, "in_progress"));
  await harness.receive("workflow_run", runWebhook(dispatch, "completed"));
}

/** The plan pull request opened (bob may read): the first dispatch, of the root stage. */
export async function openPlanPull(harness: Harness): Promise<FakeGitHub["dispatches"][number]> {
  harness.fake.roles.set("bob", "read");
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
  const [dispatch] = harness.fake.dispatches;
  if (dispatch === undefined) throw new Error("the plan's root stage was not dispatched");
  return dispatch;
}

/**
 * The run of `dispatch` ends red: `result` with one failing acceptance check, told as GitHub tells
 * it (`completed`, conclusion failure).
 */
export async function failRun(
  harness: Harness,
  dispatch: FakeGitHub["dispatches"][number],
  result: StageResult,
): Promise<void> {
  harness.fake.finishRun(dispatch.runId, "failure", {
    ...result,
    outcome: "completed-with-failures",
    reason: "1 of 1 acceptance checks failed",
  });
  await harness.receive("workflow_run", runWebhook(dispatch, "completed", "failure"));
}

/** alice presses the button `identifier` on a check run loom created, as GitHub reports the press. */
export function pressButton(harness: Harness, run: Record<string, unknown>, identifier: string) {
  return checkRunPayload("requested_action", {
    id: Number(run["id"]),
    name: String(run["name"]),
    externalId: String(run["external_id"]),
    headSha: harness.headSha,
    pullNumber: 1,
    sender: { login: "alice" },
    identifier,
  });
}
