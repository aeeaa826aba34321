/**
 * Runs one `runSession` against a scripted model in a fresh sandbox (see fake-model-server.ts and
 * fake-model-sandbox.ts). The caller cleans up with `run.box.cleanup()`.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { Heartbeat } from "../../src/artifacts/heartbeat.ts";
import { runSession, type RunSessionOptions } from "../../action/src/session/run-session.ts";
import { startFakeModelServer, type FakeTurn, type FakeModelServer } from "./fake-model-server.ts";
import { CLAUDE_PATH, createSandbox, HOOKS_DIR, type Sandbox } from "./fake-model-sandbox.ts";

export type Run = {
  box: Sandbox;
  server: FakeModelServer;
  heartbeats: Heartbeat[];
  outcome: Awaited<ReturnType<typeof runSession>>;
};

export async function runScripted(
  turns: (box: Sandbox) => FakeTurn[],
  extra: Partial<RunSessionOptions> = {},
  setup: (box: Sandbox) => void = () => undefined,
): Promise<Run> {
  const box = createSandbox();
  setup(box);
  const server = await startFakeModelServer({ turns: turns(box) });
  const heartbeats: Heartbeat[] = [];
  try {
    const outcome = await runSession({
      prompt: "Do the stage.",
      cwd: box.repo,
      claudePath: CLAUDE_PATH,
      env: box.claudeEnv(server.url),
      stageId: "stage-a",
      attempt: 1,
      stateDir: box.stateDir,
      transcriptPath: join(box.dir, "transcript.jsonl"),
      hooks: { dir: HOOKS_DIR, extension: "ts", nodePath: process.execPath },
      allowedTools: ["Read", "Write", "Edit", "Bash(git *)"],
      toolHeartbeatGapMs: 0,
      // Bounded even if a scripted session goes wrong: the watchdog ends it well within a test timeout.
      silenceTimeoutMs: 45_000,
      publishHeartbeat: (hb) => {
        heartbeats.push(Heartbeat.parse(hb));
      },
      ...extra,
    });
    return { box, server, heartbeats, outcome };
  } finally {
    await server.close();
  }
}

export type StreamLine = Record<string, unknown>;

/**
 * Runs the Claude Code binary directly (async: the scripted server lives in this process), killed
 * after `timeoutMs`; returns its stream-json lines.
 */
export function runClaude(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 40_000,
): Promise<StreamLine[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE_PATH, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(timer);
      resolve(
        out
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l) as StreamLine),
      );
    });
  });
}
