import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { openStore, type OpenStoreOptions } from "../../app/store/open-store.ts";
import type { Store } from "../../app/store/store.ts";
import type { CheckRunRecord, CommentRecord, PullRecord, Role } from "../emulator/emulator-state.ts";
import { startEmulator, type Emulator } from "../emulator/start-emulator.ts";
import { dropSchema } from "../store/test-database.ts";
import {
  createStageRunner,
  describeRunLogs,
  type ModelScript,
  type RunnerEvent,
  type StageRunner,
  type StageRunnerOptions,
} from "./runner/create-stage-runner.ts";
import { createAppProcess, type AppProcess } from "./app-process.ts";
import { startLoomApp, type LoomAppServer } from "./start-loom-app.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
export const CLAUDE_PATH = path.join(ROOT, "node_modules/.bin/claude");
export const OWNER = "acme";
export const REPO = "widgets";
export const BOT = "loom[bot]";
const SECRET = "e2e-webhook-secret";

export type E2EOptions = {
  /** Per-stage model scripts (see model-script.ts). */
  script: ModelScript;
  /** Files of the default branch besides README, the caller workflow and `.github/loom.yml`. */
  files?: Record<string, string>;
  /** `.github/loom.yml` (default: `workflow: loom.yml`). */
  loomConfig?: string;
  /** Repository roles (default: alice writes, bob reads). */
  permissions?: Record<string, Role>;
  /** PostgreSQL connection string; default a temporary SQLite file. */
  databaseUrl?: string;
  /**
   * App instances on the one store (default 1), each with its own store connection and worker id
   * (`e2e`, `e2e-2`, …), behind a load balancer: webhooks go round-robin (see `duplicateDeliveryEvery`).
   */
  replicas?: number;
  /** With replicas: every n-th webhook also reaches the next instance, same delivery id (default 3). */
  duplicateDeliveryEvery?: number;
  /**
   * Run the real `node app/main.ts` as a child process that the test can SIGKILL and start again
   * (`e2e.appProcess`), instead of the in-process app; with `replicas`, one process per replica on
   * the PostgreSQL `databaseUrl` (`e2e.appProcesses`). Its clock is real time.
   */
  appProcess?: boolean;
  /** Run each action job from the committed bundle or the TypeScript entry (default: `defaultActionEntry`). */
  entry?: "src" | "dist";
  jobTimeoutMs?: number;
  onRunnerEvent?: (event: RunnerEvent) => void;
  /** Runner faults per run (see `StageRunnerOptions.fault`). */
  fault?: StageRunnerOptions["fault"];
  /** Runs whose model is Bedrock or Vertex AI (see `StageRunnerOptions.provider`). */
  provider?: StageRunnerOptions["provider"];
  onModelServer?: StageRunnerOptions["onModelServer"];
  onAppLog?: (line: Record<string, unknown>) => void;
  /**
   * Play GitHub Enterprise Server: the emulator's GHES mode (jobs get a GHES `GITHUB_SERVER_URL`,
   * the artifact API v3, REST only under `/api/v3`), and the App configured as with `GHE_HOST`.
   */
  ghes?: boolean;
  /**
   * loom's production pacing of writes (default true), against the emulator enforcing GitHub's
   * secondary limits; false: neither (`LOOM_GITHUB_THROTTLE=off`), for benchmarks that count
   * requests of plans too big to run inside 80 writes a minute.
   */
  pacing?: boolean;
  /** The app's reconcile period (default 5 s; production: 60 s). */
  reconcileMs?: number;
};

/**
 * The app's clock: real time plus an offset the test moves forward. Backoff timers and heartbeat
 * deadlines are decided on it, so a test can jump past them instead of sleeping through them;
 * the emulator, the runner and the action keep real time.
 */
export type E2EClock = {
  now: () => number;
  /** Moves the app's time forward by `ms` and wakes its engine so due timers fire at once. */
  advance: (ms: number) => void;
};

export type E2E = {
  emulator: Emulator;
  /** The (first) in-process app; throws with `appProcess`. */
  app: LoomAppServer;
  /** Every in-process app instance (`replicas`); empty with `appProcess`. */
  apps: LoomAppServer[];
  /** The app as a child process (`appProcess: true`), else null; the first one with `replicas`. */
  appProcess: AppProcess | null;
  /** Every app child process (`appProcess: true`, one per replica); empty otherwise. */
  appProcesses: AppProcess[];
  runner: StageRunner;
  /** A connection to the app's store (the first replica's with `replicas`). */
  store: Store;
  clock: E2EClock;
  /** Opens the plan pull request from `head` with `files` (the plan among them) as `login`. */
  openPlan(input: {
    login?: string;
    head?: string;
    files: Record<string, string>;
    headRepo?: string;
  }): Promise<PullRecord>;
  /** Polls until `check` returns a value (not undefined/false) or throws after `timeoutMs`. */
  waitFor<T>(
    what: string,
    check: () => T | undefined | false | Promise<T | undefined | false>,
    timeoutMs?: number,
  ): Promise<T>;
  /**
   * loom's check runs of the pull request as people reach them, newest per name over the commits
   * of its branch: the plan's on the current head, each stage's where it was last written (on the
   * head while it runs or needs a person; a waiting or finished stage's stays where it was). Runs
   * completed as superseded are left out: the one loom writes on the new head is the check's state.
   */
  checkRuns(pull: PullRecord): Promise<CheckRunRecord[]>;
  /** loom's check runs on the pull request's current head (its checks list), newest per name. */
  headCheckRuns(pull: PullRecord): Promise<CheckRunRecord[]>;
  /**
   * Waits for the plan's check run (`loom: <planId>`) to complete, then, best effort, for every
   * stage's newest run to complete and the status comment to show all `stages` merged.
   */
  waitForPlanEnd(pull: PullRecord, planId: string, stages: number, timeoutMs?: number): Promise<void>;
  statusComment(pull: PullRecord): CommentRecord | undefined;
  /** A file on a branch of the emulator's bare repository (null when missing). */
  readFile(branch: string, file: string): Promise<string | null>;
  /** Details for a failure message: runner logs, app errors, violations. */
  describe(): string;
  close(): Promise<void>;
};

/**
 * Everything an end-to-end run needs, on loopback: the GitHub emulator (bare git repos, OpenAPI
 * checked), the real loom app over HTTP on a temporary store, the Actions Results service and the
 * stage runner that starts the real action (and the real Claude Code against per-stage scripted
 * models) for every dispatched run.
 */
export async function startE2E(options: E2EOptions): Promise<E2E> {
  const workDir = await mkdtemp(path.join(tmpdir(), "loom-e2e-"));
  const callerWorkflow = await readFile(path.join(ROOT, "examples/loom.yml"), "utf8");
  const emulator = await startEmulator({
    repos: [
      {
        owner: OWNER,
        name: REPO,
        files: {
          "README.md": "# widgets\n",
          ".github/workflows/loom.yml": callerWorkflow,
          ".github/loom.yml": options.loomConfig ?? "workflow: loom.yml\n",
          ...options.files,
        },
      },
    ],
    webhookSecret: SECRET,
    appSlug: "loom",
    permissions: options.permissions ?? { alice: "write", bob: "read" },
    ghes: options.ghes ?? false,
    ...(options.pacing === false ? { settings: { contentLimits: [] } } : {}),
  });
  const closers: (() => Promise<void>)[] = [];
  try {
    const replicas = options.replicas ?? 1;
    if (options.appProcess && replicas > 1 && !options.databaseUrl)
      throw new Error("several app processes share a PostgreSQL databaseUrl");
    if (options.appProcess && options.ghes) throw new Error("ghes runs the in-process app");
    const storeOptions: OpenStoreOptions = options.databaseUrl
      ? { databaseUrl: options.databaseUrl, schema: `e2e_${process.pid}_${Date.now()}` }
      : { sqlitePath: path.join(workDir, "loom.sqlite") };
    const stores: Store[] = [];
    for (let i = 0; i < (options.appProcess ? 1 : replicas); i++) {
      const opened = await openStore(storeOptions);
      stores.push(opened);
      closers.push(() => opened.close());
    }
    if (options.databaseUrl) {
      const url = options.databaseUrl;
      closers.push(() => dropSchema(storeOptions.schema!, url));
    }
    const store = stores[0]!;
    let offset = 0;
    const apps: LoomAppServer[] = [];
    const clock: E2EClock = {
      now: () => Date.now() + offset,
      advance: (ms) => {
        if (options.appProcess) throw new Error("the app process runs on real time");
        offset += ms;
        for (const app of apps) app.engine.wake();
      },
    };
    // Child processes reach the test's schema through DATABASE_URL (`options=-c search_path=…`).
    const processDatabase = options.databaseUrl
      ? { databaseUrl: withSearchPath(options.databaseUrl, storeOptions.schema!) }
      : { sqlitePath: path.join(workDir, "loom.sqlite") };
    const appProcesses: AppProcess[] = [];
    for (let i = 0; i < (options.appProcess ? replicas : 0); i++) {
      const child = createAppProcess({
        githubUrl: emulator.url,
        webhookSecret: SECRET,
        appId: 1,
        botLogin: BOT,
        ...processDatabase,
        workerId: i === 0 ? "e2e" : `e2e-${i + 1}`,
        pollMs: 250,
        reconcileMs: options.reconcileMs ?? 5_000,
        pacing: options.pacing ?? true,
        cwd: workDir,
        ...(replicas === 1 ? { onListening: (url: string) => emulator.setWebhookTarget(url, SECRET) } : {}),
        ...(options.onAppLog ? { onLog: options.onAppLog } : {}),
      });
      appProcesses.push(child);
      closers.unshift(() => child.close());
      await child.start();
    }
    const appProcess = appProcesses[0] ?? null;
    if (appProcesses.length > 1) {
      emulator.setWebhookTarget(
        appProcesses.map((child) => child.webhookUrl),
        SECRET,
        { duplicateEvery: options.duplicateDeliveryEvery ?? 3 },
      );
    }
    for (const [i, replicaStore] of (appProcess ? [] : stores).entries()) {
      const app = await startLoomApp({
        // Probot's API URL from GHE_HOST is `<host>/api/v3`; links point at the host.
        githubUrl: options.ghes ? `${emulator.url}/api/v3` : emulator.url,
        ...(options.ghes ? { serverUrl: emulator.url } : {}),
        webhookSecret: SECRET,
        appId: 1,
        store: replicaStore,
        now: clock.now,
        botLogin: BOT,
        workerId: i === 0 ? "e2e" : `e2e-${i + 1}`,
        pollMs: 250,
        reconcileMs: options.reconcileMs ?? 5_000,
        pacing: options.pacing ?? true,
        ...(options.onAppLog ? { onLog: options.onAppLog } : {}),
      });
      apps.push(app);
      closers.unshift(() => app.close());
    }
    if (apps.length === 1) emulator.setWebhookTarget(apps[0]!.webhookUrl, SECRET);
    else if (apps.length > 1) {
      emulator.setWebhookTarget(
        apps.map((app) => app.webhookUrl),
        SECRET,
        { duplicateEvery: options.duplicateDeliveryEvery ?? 3 },
      );
    }
    const runner = createStageRunner({
      emulator,
      workDir,
      script: options.script,
      ...(options.entry ? { entry: options.entry } : {}),
      jobTimeoutMs: options.jobTimeoutMs ?? 90_000,
      ...(options.onRunnerEvent ? { onEvent: options.onRunnerEvent } : {}),
      ...(options.fault ? { fault: options.fault } : {}),
      ...(options.provider ? { provider: options.provider } : {}),
      ...(options.onModelServer ? { onModelServer: options.onModelServer } : {}),
    });
    emulator.setRunner(runner);
    closers.unshift(async () => {
      emulator.setWebhookTarget(null);
      runner.stopAll();
      emulator.setRunner(null);
      // An unref'd bound: a settled emulator must not keep the test process alive for 15 s more.
      await Promise.race([emulator.settle(), sleep(15_000, undefined, { ref: false })]);
    });

    /** loom's check runs on `commits`, newest per name. */
    const newestLoomRuns = (commits: ReadonlySet<string>): CheckRunRecord[] => {
      const newest = new Map<string, CheckRunRecord>();
      for (const run of emulator.state.checkRuns) {
        if (!commits.has(run.headSha) || run.app !== BOT || !run.name.startsWith("loom")) continue;
        // A run loom completed as superseded (the head moved on) is not its check's state: the
        // run on the new head is, written just after it.
        if (run.output.title?.startsWith("Superseded:")) continue;
        const known = newest.get(run.name);
        if (!known || known.id < run.id) newest.set(run.name, run);
      }
      return [...newest.values()].sort((a, b) => a.name.localeCompare(b.name));
    };
    const e2e: E2E = {
      emulator,
      get app(): LoomAppServer {
        if (!apps[0]) throw new Error("the app runs as a child process: use e2e.appProcess");
        return apps[0];
      },
      apps,
      appProcess,
      appProcesses,
      runner,
      store,
      clock,
      openPlan: ({ login = "alice", head = "feature/plan", files, headRepo }) =>
        emulator.as(login).openPullRequest({
          head,
          title: "Add a plan",
          files,
          ...(headRepo ? { headRepo } : {}),
        }),
      async waitFor(what, check, timeoutMs = 120_000) {
        const deadline = Date.now() + timeoutMs;
        for (let round = 0; Date.now() < deadline; round++) {
          const value = await check();
          if (value !== undefined && value !== false) return value;
          if (emulator.runnerErrors.length > 0) break;
          await sleep(Math.min(500, 50 * (round + 1)));
        }
        throw new Error(`timed out waiting for ${what}\n${e2e.describe()}`);
      },
      async checkRuns(pull) {
        // A fork's branch is in the fork: the pull request record follows its head.
        const repo = emulator.repo(pull.headRepo);
        const head = (await repo.git.readBranch(pull.headRef)) ?? pull.headSha;
        return newestLoomRuns(new Set(await repo.git.listCommits(null, head, 1_000)));
      },
      async headCheckRuns(pull) {
        const head = (await emulator.repo(pull.headRepo).git.readBranch(pull.headRef)) ?? pull.headSha;
        return newestLoomRuns(new Set([head]));
      },
      async waitForPlanEnd(pull, planId, stages, timeoutMs = 120_000) {
        await e2e.waitFor(
          "the plan's check run to complete",
          async () =>
            // A plan waiting for approval shows a completed `action_required` run: not its end.
            (await e2e.checkRuns(pull)).find(
              (r) =>
                r.name === `loom: ${planId}` &&
                r.status === "completed" &&
                r.conclusion !== "action_required",
            ),
          timeoutMs,
        );
        const merged = new RegExp(`\\*\\*${stages}/${stages} merged\\*\\*`);
        await e2e
          .waitFor(
            "every stage's check run and the final status comment",
            async () =>
              (await e2e.checkRuns(pull)).filter((r) => r.status === "completed").length === stages + 1 &&
              merged.test(e2e.statusComment(pull)?.body ?? ""),
            30_000,
          )
          .catch((error: unknown) => error);
      },
      statusComment: (pull) =>
        emulator.state.comments.find(
          (c) => c.issueNumber === pull.number && c.user === BOT && c.body.includes("<!-- loom:status:"),
        ),
      readFile: async (branch, file) => {
        const blob = await emulator.repo().git.readBlob(branch, file);
        return blob === null ? null : blob.toString("utf8");
      },
      describe() {
        const errors = (appProcess ? appProcesses.map((child) => child.logs) : apps.map((app) => app.logs))
          .flat()
          .filter((l) => Number(l["level"]) >= 40)
          .map((l) => `app ${String(l["msg"])}: ${JSON.stringify(l["err"] ?? "").slice(0, 500)}`);
        const jobs = [...runner.logs.keys()].map((id) => `run ${id}: ${describeRunLogs(runner, id)}`);
        return [
          ...errors.slice(-10),
          ...jobs.slice(-4),
          ...emulator.violations.map(
            (v) => `violation ${v.kind} ${v.method} ${v.path}: ${v.errors.join("; ")}`,
          ),
          ...[...runner.startupFailures].map(([id, why]) => `run ${id} failed at startup: ${why}`),
          ...emulator.runnerErrors.map(
            (e) =>
              `runner error: ${e.message}: ${e.cause instanceof Error ? (e.cause.stack ?? e.cause.message) : JSON.stringify(e.cause)}`,
          ),
        ].join("\n");
      },
      async close() {
        for (const close of closers) await close().catch(() => undefined);
        await emulator.close().catch(() => undefined);
        await rm(workDir, { recursive: true, force: true });
      },
    };
    return e2e;
  } catch (error) {
    for (const close of closers) await close().catch(() => undefined);
    await emulator.close();
    await rm(workDir, { recursive: true, force: true });
    throw error;
  }
}

/** `url` with every connection's search_path set to `schema` (libpq's `options` parameter). */
function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set("options", `-c search_path=${schema}`);
  return parsed.toString();
}
