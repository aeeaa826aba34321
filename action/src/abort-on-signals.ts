/** What the action listens on: `process` in the job, an EventEmitter in tests. */
export type SignalSource = {
  on(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(event: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
};

export type SignalAbort = { signal: AbortSignal; dispose(): void };

/**
 * GitHub cancels a step by sending SIGINT to its process, SIGTERM 7.5 s later and killing the
 * process tree 2.5 s after that. Listening turns the first of these into an abort (the reason is
 * the signal's name) instead of an instant exit, so the action can stop the session and upload
 * its result with the handoff in that time; later signals change nothing (the work is under way).
 */
export function abortOnSignals(
  source: SignalSource,
  log: (message: string) => void = () => undefined,
): SignalAbort {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      log(`loom: ${signal} received; still writing the result of the cancelled run`);
      return;
    }
    log(`loom: ${signal} received: the run is being cancelled; stopping the session and writing its handoff`);
    controller.abort(signal);
  };
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM"];
  for (const name of signals) source.on(name, onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      for (const name of signals) source.off(name, onSignal);
    },
  };
}
