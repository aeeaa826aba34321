import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import type { Heartbeat } from "../../../src/artifacts/heartbeat.ts";
import { killUserProcesses, signalUserProcesses } from "../isolation/kill-user-processes.ts";
import { planSpawn } from "../isolation/plan-spawn.ts";
import { buildHeartbeat, createHeartbeatPublisher, readHookHeartbeat } from "./build-heartbeat.ts";
import { buildClaudeArgs, buildHookEnv, locateSessionFiles, type SessionFiles } from "./claude-args.ts";
import { buildHookSettings } from "./hook-settings.ts";
import { killProcessGroup } from "./kill-process-group.ts";
import { finishOutcome } from "./finish-outcome.ts";
import {
  computeContextPercent,
  EMPTY_OBSERVATION,
  observeStream,
  type StreamObservation,
} from "./observe-stream.ts";
import type { SessionOutcome, StopCause } from "./session-outcome.ts";
import type { RunSessionOptions } from "./run-session-options.ts";
import { parseStreamLine } from "./stream-message.ts";

export type { RunSessionOptions };

const STDERR_TAIL_CHARS = 8000;
/**
 * SIGTERM → SIGKILL for a cancelled session: GitHub gives the step 7.5 s after SIGINT and the
 * result still has to be written and uploaded after the session is gone.
 */
export const CANCEL_KILL_GRACE_MS = 1000;

/** Empties the session's state folder of a previous session's files and makes the hooks' folder. */
export function prepareStateDir(files: SessionFiles): void {
  for (const path of [files.heartbeatFile, files.handoffNotesFile, files.hookStateDir])
    rmSync(path, { recursive: true, force: true });
  mkdirSync(files.hookStateDir, { recursive: true });
}

/** Runs one headless Claude Code session to its end and says how it ended. Never throws for a bad session. */
export async function runSession(options: RunSessionOptions): Promise<SessionOutcome> {
  const now = options.now ?? (() => new Date());
  const log = options.log ?? (() => undefined);
  const started = now().getTime();
  const budget = options.contextBudgetPercent ?? 65;
  const files: SessionFiles = locateSessionFiles(options.stateDir);
  // With a sandbox the caller has already lent the state folder (and prepared it): through sudo
  // the action's user can no longer write there.
  if (options.sandbox?.isolation.kind !== "user") prepareStateDir(files);
  mkdirSync(dirname(options.transcriptPath), { recursive: true });

  const args = buildClaudeArgs({
    ...options,
    settings: options.hooks === null ? {} : buildHookSettings(options.hooks),
    // The learnings file lives outside the checkout (it must not be committed). Its folder is
    // opened explicitly so a permission mode stricter than acceptEdits still lets the session
    // write there (Claude Code 2.1 with acceptEdits already does).
    additionalDirs: options.learningsFile === undefined ? [] : [dirname(options.learningsFile)],
  });
  const plan = planSpawn(options.sandbox, options.claudePath, args, {
    ...options.env,
    ...buildHookEnv({ ...files, ...options }),
  });
  const child = spawn(plan.command, plan.args, {
    cwd: options.cwd,
    env: plan.env,
    ...(plan.uid === undefined ? {} : { uid: plan.uid }),
    ...(plan.gid === undefined ? {} : { gid: plan.gid }),
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const pgid = child.pid;
  const sandbox = options.sandbox?.isolation.kind === "user" ? options.sandbox : undefined;
  /** The session's process group, and with a sandbox every process of its user (setsid ones too). */
  const signalSession = (signal: NodeJS.Signals): void => {
    if (sandbox !== undefined) signalUserProcesses(sandbox, signal);
    // Through sudo the group leader is sudo (root's): the user's processes were signalled above.
    if (pgid !== undefined && !(sandbox?.isolation.kind === "user" && sandbox.isolation.via === "sudo"))
      killProcessGroup(pgid, signal);
  };
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", (error) => {
      log("could not start Claude Code", { error: String(error) });
      resolve({ code: null, signal: null });
    });
  });
  child.stdin.on("error", (error) => log("stdin of Claude Code closed early", { error: String(error) }));
  child.stdin.end(options.prompt);
  let stderrTail = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
  });
  const transcript = createWriteStream(options.transcriptPath);

  let observation: StreamObservation = EMPTY_OBSERVATION;
  // Written from callbacks: kept in an object so reads after `await` are not narrowed to null.
  const ended: { cause: StopCause | null; lastHeartbeat: Heartbeat | null } = {
    cause: null,
    lastHeartbeat: null,
  };
  let lastOutputAt = now().getTime();
  let lastToolHeartbeatAt = 0;
  const contextPercent = (): number => computeContextPercent(observation, options.contextWindow);

  const publisher = createHeartbeatPublisher(options.publishHeartbeat, options.maxHeartbeats ?? 400, log);
  const publish = (): void => {
    const heartbeat = buildHeartbeat(observation, readHookHeartbeat(files.heartbeatFile), {
      stageId: options.stageId,
      attempt: options.attempt,
      timestamp: now().toISOString(),
      contextPercent: contextPercent(),
    });
    ended.lastHeartbeat = heartbeat;
    publisher.publish(heartbeat);
  };

  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
  let stopReading: () => void = () => undefined;
  const readingDone = new Promise<void>((resolve) => {
    stopReading = resolve;
    lines.once("close", resolve);
  });
  const endSession = (why: StopCause): void => {
    if (ended.cause !== null) return;
    ended.cause = why;
    log("ending the session", { why });
    signalSession("SIGTERM");
    const grace = options.killGraceMs ?? 3000;
    const timer = setTimeout(
      () => signalSession("SIGKILL"),
      why.kind === "cancelled" ? Math.min(grace, CANCEL_KILL_GRACE_MS) : grace,
    );
    timer.unref();
    stopReading();
  };

  lines.on("line", (text) => {
    if (ended.cause !== null || observation.result !== null) return;
    transcript.write(`${text}\n`);
    lastOutputAt = now().getTime();
    const event = parseStreamLine(text);
    if (event.type === "invalid") log("unreadable stream line", { reason: event.reason });
    const before = observation;
    observation = observeStream(observation, event);
    if (event.type === "result") {
      stopReading();
      return;
    }
    if (before.sessionId === "" && observation.sessionId !== "") publish();
    if (
      observation.toolUses > before.toolUses &&
      now().getTime() - lastToolHeartbeatAt >= (options.toolHeartbeatGapMs ?? 15_000)
    ) {
      lastToolHeartbeatAt = now().getTime();
      publish();
    }
    const percent = contextPercent();
    if (event.type === "assistant" && percent >= budget) endSession({ kind: "context-budget", percent });
  });

  const onAbort = (): void => {
    const reason: unknown = options.signal?.reason;
    endSession({ kind: "cancelled", signal: typeof reason === "string" ? reason : "aborted" });
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });

  const heartbeatTimer = setInterval(publish, options.heartbeatIntervalMs ?? 60_000);
  const silenceTimeout = options.silenceTimeoutMs ?? 15 * 60_000;
  const watchdog = setInterval(
    () => {
      const silentForMs = now().getTime() - lastOutputAt;
      if (silentForMs >= silenceTimeout) endSession({ kind: "silence", silentForMs });
    },
    Math.max(50, Math.min(1000, silenceTimeout / 4)),
  );

  // A grandchild can hold stdout open after Claude Code exits: do not wait for it long.
  const afterExit = exited.then(() =>
    Promise.race([readingDone, new Promise((resolve) => setTimeout(resolve, 2000).unref())]),
  );
  await Promise.race([readingDone, afterExit]);
  clearInterval(watchdog);
  options.signal?.removeEventListener("abort", onAbort);
  lines.close();
  child.stdout.resume(); // keep draining after the result so Claude Code never blocks on a full pipe
  const exitGrace = setTimeout(() => signalSession("SIGKILL"), options.exitGraceMs ?? 10_000);
  const exit = await exited;
  clearTimeout(exitGrace);
  clearInterval(heartbeatTimer);
  // Whatever the session left running in its group (background shells) ends with it; with a
  // sandbox, everything its user runs, wherever it moved.
  signalSession("SIGKILL");
  if (sandbox !== undefined) {
    const left = await killUserProcesses(sandbox);
    if (left.length > 0) log("the session user still runs processes after SIGKILL", { pids: left });
  }
  await new Promise<void>((resolve) => transcript.end(resolve));

  publish();
  await publisher.drain();
  return finishOutcome({
    pgid: pgid ?? null,
    options,
    files,
    observation,
    cause: ended.cause ?? { kind: "stream-ended" },
    exit,
    stderrTail,
    lastHeartbeat: ended.lastHeartbeat,
    started,
    now,
  });
}
