import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createPrivateKey } from "../support/create-private-key.ts";
import { freePort } from "../support/free-port.ts";
import { START_FLAGS } from "../support/start-flags.ts";

const MAIN = path.resolve(import.meta.dirname, "../../app/main.ts");

export type AppProcessOptions = {
  /** The emulator's URL: the app reaches it as a GitHub Enterprise Server (`GHE_HOST`, `/api/v3`). */
  githubUrl: string;
  webhookSecret: string;
  appId: number;
  botLogin: string;
  /** The SQLite file every incarnation opens (`LOOM_SQLITE_PATH`), unless `databaseUrl` is given. */
  sqlitePath?: string;
  /** `DATABASE_URL`: PostgreSQL shared with other processes (replicas). */
  databaseUrl?: string;
  /** `LOOM_WORKER_ID`, the same for every incarnation: a restart, not a new replica. */
  workerId: string;
  pollMs: number;
  reconcileMs: number;
  /** `LOOM_GITHUB_THROTTLE` on (default) or off. */
  pacing?: boolean;
  /** Working directory (Probot reads a `.env` there: not the repository's). */
  cwd: string;
  /** Any other settings (`METRICS_TOKEN`, `METRICS_PORT`…), as an operator would set them. */
  env?: Record<string, string>;
  /** Called once each incarnation listens, with its webhook URL. */
  onListening?: (webhookUrl: string) => void;
  onLog?: (line: Record<string, unknown>) => void;
};

export type AppProcess = {
  /** The current (or last) incarnation's webhook URL. */
  readonly webhookUrl: string;
  /** Log lines of every incarnation (pino JSON; other output as `{ msg }`), each with its `incarnation`. */
  logs: Record<string, unknown>[];
  /** How many times the app was started. */
  readonly incarnations: number;
  /** How each incarnation that ended exited: its code, or the signal that killed it. */
  exits: { code: number | null; signal: NodeJS.Signals | null }[];
  readonly running: boolean;
  /** The running incarnation's process id, or null. */
  readonly pid: number | null;
  /** Starts an incarnation (a fresh port) and resolves once it answers `/ping`. */
  start(): Promise<void>;
  /** SIGKILL: no shutdown, no goodbye; resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM (main.ts stops its engine and store), SIGKILL if it lingers. */
  close(): Promise<void>;
  /**
   * Sends `signal` and resolves with how the process exited; SIGKILL after `killAfterMs` (default
   * 15 s) if it has not, so a process that ignores the signal ends with `signal: "SIGKILL"`.
   */
  stop(
    signal: NodeJS.Signals,
    killAfterMs?: number,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

/**
 * The real entry, `node app/main.ts`, as a child process the test can SIGKILL and start again on
 * the same store. Configured only through the environment, as an operator would: the emulator is
 * its `GHE_HOST` (Probot appends `/api/v3`, which the emulator accepts like GitHub Enterprise
 * Server), with loom's default pacing by GitHub's secondary limits, which the emulator enforces.
 */
export function createAppProcess(options: AppProcessOptions): AppProcess {
  const privateKey = createPrivateKey();
  const githubHost = new URL(options.githubUrl);
  const logs: Record<string, unknown>[] = [];
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let webhookUrl = "";
  let incarnations = 0;
  const exits: AppProcess["exits"] = [];

  const record = (incarnation: number, line: string) => {
    if (line.trim() === "") return;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      parsed = { level: 50, msg: line };
    }
    parsed["incarnation"] = incarnation;
    logs.push(parsed);
    options.onLog?.(parsed);
  };
  const collect = (incarnation: number, stream: NodeJS.ReadableStream | null) => {
    let rest = "";
    stream?.setEncoding("utf8");
    stream?.on("data", (chunk: string) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) record(incarnation, line);
    });
    stream?.on("end", () => record(incarnation, rest));
  };

  const stopWith = async (signal: NodeJS.Signals) => {
    const current = child;
    if (current === null) return;
    current.kill(signal);
    await exited;
  };

  return {
    get webhookUrl() {
      return webhookUrl;
    },
    logs,
    get incarnations() {
      return incarnations;
    },
    exits,
    get running() {
      return child !== null;
    },
    get pid() {
      return child?.pid ?? null;
    },
    async start() {
      if (child !== null) throw new Error("the app process is already running");
      const port = await freePort();
      incarnations += 1;
      const incarnation = incarnations;
      const env: Record<string, string> = {
        PATH: process.env["PATH"] ?? "",
        HOME: process.env["HOME"] ?? "/tmp",
        NODE_ENV: "production",
        NO_SMEE_SETUP: "true",
        LOG_FORMAT: "json",
        LOG_LEVEL: process.env["LOOM_E2E_LOG"] ?? "info",
        APP_ID: String(options.appId),
        PRIVATE_KEY: privateKey,
        WEBHOOK_SECRET: options.webhookSecret,
        GHE_HOST: githubHost.host,
        GHE_PROTOCOL: githubHost.protocol.replace(/:$/, ""),
        HOST: "127.0.0.1",
        PORT: String(port),
        ...(options.sqlitePath === undefined ? {} : { LOOM_SQLITE_PATH: options.sqlitePath }),
        ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
        LOOM_WORKER_ID: options.workerId,
        LOOM_BOT_LOGIN: options.botLogin,
        LOOM_POLL_INTERVAL_SECS: String(options.pollMs / 1000),
        LOOM_RECONCILE_INTERVAL_SECS: String(options.reconcileMs / 1000),
        LOOM_GITHUB_THROTTLE: options.pacing === false ? "off" : "on",
        ...options.env,
      };
      // The flags `npm start` gives Node, unless LOOM_APP_NODE_ARGS replaces them for an
      // experiment (`LOOM_APP_NODE_ARGS="--max-semi-space-size=8" npm run bench -- rss`).
      const override = process.env["LOOM_APP_NODE_ARGS"];
      const nodeArgs = override === undefined ? [...START_FLAGS] : override.split(" ").filter(Boolean);
      const started = spawn(process.execPath, [...nodeArgs, MAIN], {
        cwd: options.cwd,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      child = started;
      exited = new Promise((resolve) =>
        // "close", not "exit": the last output lines (a refusal to start) are read by then.
        started.once("close", (code, signal) => {
          record(incarnation, JSON.stringify({ level: 30, msg: `app process exited (${signal ?? code})` }));
          exits.push({ code, signal });
          if (child === started) child = null;
          resolve();
        }),
      );
      collect(incarnation, started.stdout);
      collect(incarnation, started.stderr);
      webhookUrl = `http://127.0.0.1:${port}/api/github/webhooks`;
      // Bounded: 300 × 100 ms for Node to load the app and Probot to listen.
      for (let attempt = 0; attempt < 300; attempt++) {
        if (child !== started) throw new Error(`the app process exited while starting:\n${tail(logs)}`);
        const up = await fetch(`http://127.0.0.1:${port}/ping`).then(
          (response) => response.ok,
          () => false,
        );
        if (up) {
          options.onListening?.(webhookUrl);
          return;
        }
        await sleep(100);
      }
      await stopWith("SIGKILL");
      throw new Error(`the app process never listened on ${port}:\n${tail(logs)}`);
    },
    kill: () => stopWith("SIGKILL"),
    async stop(signal, killAfterMs = 15_000) {
      const current = child;
      if (current === null) throw new Error("the app process is not running");
      const count = exits.length;
      current.kill(signal);
      const timer = setTimeout(() => current.kill("SIGKILL"), killAfterMs);
      await exited;
      clearTimeout(timer);
      const exit = exits[count];
      if (exit === undefined) throw new Error("the app process exit was not recorded");
      return exit;
    },
    async close() {
      const current = child;
      if (current === null) return;
      current.kill("SIGTERM");
      const timer = setTimeout(() => current.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function tail(logs: Record<string, unknown>[]): string {
  return logs
    .slice(-10)
    .map((line) => String(line["msg"]))
    .join("\n");
}

/**
 * The real App on a fresh SQLite file in a temp folder of its own, with a GitHub that refuses
 * connections (it idles; deliveries it tries are parked), not started yet. `cleanup` (a test's
 * `t.after`, or `after`) kills it and removes the folder.
 */
export function createIdleApp(
  cleanup: (fn: () => Promise<void>) => void,
  options: { name: string; webhookSecret: string; pollMs?: number; env?: Record<string, string> },
): { app: AppProcess; sqlitePath: string } {
  const dir = mkdtempSync(path.join(tmpdir(), `loom-${options.name}-`));
  const sqlitePath = path.join(dir, "loom.sqlite");
  const app = createAppProcess({
    githubUrl: "http://127.0.0.1:9",
    webhookSecret: options.webhookSecret,
    appId: 1,
    botLogin: "loom[bot]",
    sqlitePath,
    workerId: options.name,
    pollMs: options.pollMs ?? 200,
    reconcileMs: 600_000,
    cwd: dir,
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  cleanup(async () => {
    await app.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  return { app, sqlitePath };
}
