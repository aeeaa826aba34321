import type { ShutdownLog } from "./stop-loom.ts";

/** The signals loom drains on: Ctrl-C, and what `docker stop`, Kubernetes and systemd send. */
export const SHUTDOWN_SIGNALS = ["SIGINT", "SIGTERM"] as const;
export type ShutdownSignal = (typeof SHUTDOWN_SIGNALS)[number];

/**
 * How long a drain may take before loom exits anyway: under `docker stop`'s 10 s grace period
 * (Kubernetes gives 30 s). Whatever is still leased then is taken back when this worker restarts
 * under the same `LOOM_WORKER_ID`, or by any replica when its lease ends.
 */
export const SHUTDOWN_DEADLINE_MS = 8_000;

/**
 * The same signal again this soon after the first is the same request delivered twice, not a
 * second one: under `npm start` (whose script `exec`s node, so npm's signals reach loom) a
 * terminal's Ctrl-C reaches npm and loom together and npm passes its copy on; systemd's default
 * `KillMode=control-group` sends SIGTERM to npm and loom alike, and npm passes its copy on too.
 * A person who means to force the exit presses Ctrl-C again later than this.
 */
export const SIGNAL_ECHO_MS = 1_000;

/** The part of `process` this needs (any `EventEmitter` in tests). */
export type SignalTarget = Pick<NodeJS.EventEmitter, "on" | "removeAllListeners">;

export type ShutdownOptions = {
  target: SignalTarget;
  /** The logger to use when the signal comes (Probot's, once the App is loaded). */
  log: () => ShutdownLog;
  /** Drains everything; resolves true when every step succeeded (see `stopLoom`). */
  stop: () => Promise<boolean>;
  exit: (code: number) => void;
  deadlineMs?: number;
  setTimer?: (run: () => void, ms: number) => void;
  /** Milliseconds of a monotonic clock (default `performance.now`). */
  now?: () => number;
};

export type Shutdown = {
  /**
   * Removes SIGINT/SIGTERM listeners others added: Probot's `run` adds a SIGINT one that exits as
   * soon as its HTTP server is closed, in the middle of the drain. Call it once `run` resolved.
   */
  takeOver(): void;
  /**
   * Drains as a signal does, for a failure that leaves loom unable to work (the drain thread
   * ended): logs `loom stopping: <error>` and exits 1 whatever the drain's outcome.
   */
  failed(error: unknown): void;
};

/**
 * SIGINT and SIGTERM both drain loom (`stop`) and exit 0, logging `loom stopping on <signal>` and
 * `loom stopped`. A second signal, or the deadline, exits 1 at once; the same signal again within
 * `SIGNAL_ECHO_MS` is the first one delivered twice and changes nothing.
 */
export function shutdownOnSignals(options: ShutdownOptions): Shutdown {
  const deadlineMs = options.deadlineMs ?? SHUTDOWN_DEADLINE_MS;
  const setTimer =
    options.setTimer ??
    ((run: () => void, ms: number) => {
      setTimeout(run, ms);
    });
  const now = options.now ?? (() => performance.now());
  let stopping: { signal: ShutdownSignal | null; at: number } | null = null;
  let exited = false;
  const exit = (code: number) => {
    if (exited) return;
    exited = true;
    options.exit(code);
  };
  const onSignal = (signal: ShutdownSignal) => {
    const log = options.log();
    if (stopping !== null) {
      if (signal === stopping.signal && now() - stopping.at < SIGNAL_ECHO_MS) {
        log.info({ signal, echoMs: SIGNAL_ECHO_MS }, `loom already stopping; the same ${signal} again`);
        return;
      }
      log.error({ signal, first: stopping.signal }, `loom forced to stop by a second ${signal}`);
      exit(1);
      return;
    }
    stopping = { signal, at: now() };
    log.info({ signal, deadlineMs }, `loom stopping on ${signal}`);
    drain(log, { signal }, true);
  };
  /** Runs `stop` under the deadline; exits 0 when it succeeded and `clean` says a clean stop is one. */
  const drain = (log: ShutdownLog, data: object, clean: boolean) => {
    setTimer(() => {
      log.error({ deadlineMs }, `loom did not stop within ${deadlineMs / 1000} s; exiting anyway`);
      exit(1);
    }, deadlineMs);
    options.stop().then(
      (ok) => {
        if (ok) log.info(data, "loom stopped");
        else log.error(data, "loom stopped, with errors (above)");
        exit(ok && clean ? 0 : 1);
      },
      (error: unknown) => {
        log.error({ err: error }, "loom could not stop cleanly");
        exit(1);
      },
    );
  };
  const listeners = new Map<ShutdownSignal, () => void>();
  for (const signal of SHUTDOWN_SIGNALS) {
    const listener = () => onSignal(signal);
    listeners.set(signal, listener);
    options.target.on(signal, listener);
  }
  return {
    failed(error) {
      if (stopping !== null) return;
      stopping = { signal: null, at: now() };
      const log = options.log();
      log.error({ err: error, deadlineMs }, "loom stopping after a failure");
      drain(log, {}, false);
    },
    takeOver() {
      for (const [signal, listener] of listeners) {
        options.target.removeAllListeners(signal);
        options.target.on(signal, listener);
      }
    },
  };
}
