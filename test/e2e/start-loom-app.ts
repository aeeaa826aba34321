import { createPrivateKey } from "../support/create-private-key.ts";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import pino from "pino";
import { createNodeMiddleware, Probot } from "probot";
import type { Engine } from "../../app/engine/create-engine.ts";
import { createGitHubCache } from "../../app/github/github-cache.ts";
import { pacedOctokit } from "../../app/github/paced-octokit.ts";
import { UnthrottledOctokit } from "../../app/github/unthrottled-octokit.ts";
import { createLoomApp } from "../../app/index.ts";
import type { Store } from "../../app/store/store.ts";

export type LoomAppServer = {
  /** Where GitHub (the emulator) sends webhooks. */
  webhookUrl: string;
  engine: Engine;
  /** The app's log lines (pino JSON objects), newest last. */
  logs: Record<string, unknown>[];
  close(): Promise<void>;
};

export type LoomAppOptions = {
  githubUrl: string;
  /** Where people open GitHub (the App's `serverUrl`, from `GHE_HOST`); default github.com. */
  serverUrl?: string;
  webhookSecret: string;
  appId: number;
  store: Store;
  now: () => number;
  botLogin: string | null;
  /** This instance's name in the store's leases (default `e2e`); one per replica. */
  workerId?: string;
  /** Engine poll and reconcile periods. */
  pollMs: number;
  reconcileMs: number;
  /** `LOOM_GITHUB_THROTTLE`: loom's pacing by GitHub's secondary limits (true) or none. */
  pacing: boolean;
  onLog?: (line: Record<string, unknown>) => void;
};

/**
 * The loom app as `app/main.ts` wires it (createLoomApp, its engine started with intervals), served
 * over HTTP by Probot's own middleware, with `baseUrl` pointing at the emulator. In process, so a
 * test can move its clock and wake its engine; `app-process.ts` runs the real `node app/main.ts`
 * instead, for tests that kill it.
 */
export async function startLoomApp(options: LoomAppOptions): Promise<LoomAppServer> {
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line.trim() === "") continue;
        const parsed = JSON.parse(line) as Record<string, unknown>;
        logs.push(parsed);
        options.onLog?.(parsed);
      }
      done();
    },
  });
  const probot = new Probot({
    appId: options.appId,
    privateKey: createPrivateKey(),
    secret: options.webhookSecret,
    baseUrl: options.githubUrl,
    log: pino({ level: process.env["LOOM_E2E_LOG"] ?? "info" }, sink),
    // As `LOOM_GITHUB_THROTTLE`: paced by GitHub's secondary limits, which the emulator enforces.
    Octokit: options.pacing ? pacedOctokit() : UnthrottledOctokit,
  });
  let engine: Engine | undefined;
  const middleware = await createNodeMiddleware(
    createLoomApp({
      store: options.store,
      now: options.now,
      workerId: options.workerId ?? "e2e",
      botLogin: options.botLogin,
      ...(options.serverUrl === undefined ? {} : { serverUrl: options.serverUrl }),
      cache: createGitHubCache(),
      onEngine: (created) => {
        engine = created;
        created.start({ pollMs: options.pollMs, reconcileMs: options.reconcileMs });
      },
    }),
    { probot },
  );
  if (engine === undefined) throw new Error("the loom app did not create its engine");
  const server = createServer((req, res) => {
    void Promise.resolve(middleware(req, res)).then((handled) => {
      if (handled !== true && !res.headersSent) res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const started = engine;
  return {
    webhookUrl: `http://127.0.0.1:${port}/api/github/webhooks`,
    engine: started,
    logs,
    close: async () => {
      await started.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
