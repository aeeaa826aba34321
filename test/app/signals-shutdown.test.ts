import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { test } from "node:test";
import { SIGNAL_ECHO_MS, shutdownOnSignals } from "../../app/shutdown-on-signals.ts";

/** A fake process: signals are emitted by the test; exits, timers and log lines are recorded. */
function setUp(stop: () => Promise<boolean>) {
  const target = new EventEmitter();
  const exits: number[] = [];
  const lines: string[] = [];
  const timers: { run: () => void; ms: number }[] = [];
  const clock = { ms: 0 };
  const shutdown = shutdownOnSignals({
    target,
    log: () => ({
      info: (_data, message) => lines.push(message),
      error: (_data, message) => lines.push(message),
    }),
    stop,
    exit: (code) => exits.push(code),
    deadlineMs: 5_000,
    setTimer: (run, ms) => timers.push({ run, ms }),
    now: () => clock.ms,
  });
  return { target, exits, lines, timers, shutdown, clock };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

test("one signal drains and exits 0 once the drain is done", async () => {
  let finish: (ok: boolean) => void = () => undefined;
  const { target, exits, lines, timers } = setUp(() => new Promise((resolve) => (finish = resolve)));
  target.emit("SIGTERM");
  await flush();
  assert.deepEqual(exits, [], "not before the drain ends");
  assert.deepEqual(lines, ["loom stopping on SIGTERM"]);
  assert.deepEqual(
    timers.map((t) => t.ms),
    [5_000],
  );
  finish(true);
  await flush();
  assert.deepEqual(exits, [0]);
  assert.deepEqual(lines, ["loom stopping on SIGTERM", "loom stopped"]);
  timers[0]!.run();
  assert.deepEqual(exits, [0], "the deadline after a clean stop changes nothing");
});

test("a drain with a failed step exits 1", async () => {
  const { target, exits } = setUp(() => Promise.resolve(false));
  target.emit("SIGINT");
  await flush();
  assert.deepEqual(exits, [1]);
});

test("a second signal forces the exit at once", async () => {
  const { target, exits, lines, clock } = setUp(() => new Promise(() => undefined));
  target.emit("SIGINT");
  clock.ms += SIGNAL_ECHO_MS;
  target.emit("SIGINT");
  await flush();
  assert.deepEqual(exits, [1]);
  assert.deepEqual(lines, ["loom stopping on SIGINT", "loom forced to stop by a second SIGINT"]);
});

test("the same signal twice within a second is one request (Ctrl-C reaches npm and loom, npm passes it on)", async () => {
  const { target, exits, lines, clock } = setUp(() => new Promise(() => undefined));
  target.emit("SIGINT");
  clock.ms += 2;
  target.emit("SIGINT");
  await flush();
  assert.deepEqual(exits, [], "still draining");
  assert.deepEqual(lines, ["loom stopping on SIGINT", "loom already stopping; the same SIGINT again"]);
});

test("another signal within that second still forces the exit", async () => {
  const { target, exits, lines } = setUp(() => new Promise(() => undefined));
  target.emit("SIGTERM");
  target.emit("SIGINT");
  await flush();
  assert.deepEqual(exits, [1]);
  assert.equal(lines.at(-1), "loom forced to stop by a second SIGINT");
});

test("the deadline forces the exit when the drain hangs", () => {
  const { target, exits, lines, timers } = setUp(() => new Promise(() => undefined));
  target.emit("SIGTERM");
  timers[0]!.run();
  assert.deepEqual(exits, [1]);
  assert.equal(lines.at(-1), "loom did not stop within 5 s; exiting anyway");
});

test("takeOver removes a listener that would exit in the middle of the drain (Probot's SIGINT)", async () => {
  const { target, exits, shutdown } = setUp(() => Promise.resolve(true));
  let probotRan = false;
  target.on("SIGINT", () => (probotRan = true));
  shutdown.takeOver();
  assert.equal(target.listenerCount("SIGINT"), 1);
  assert.equal(target.listenerCount("SIGTERM"), 1);
  target.emit("SIGINT");
  await flush();
  assert.equal(probotRan, false);
  assert.deepEqual(exits, [0]);
});

test("a failure that leaves loom unable to work drains it and exits 1, even when the drain succeeds", async () => {
  const { target, exits, lines, timers, shutdown } = setUp(() => Promise.resolve(true));
  shutdown.failed(new Error("the drain thread ended unexpectedly"));
  await flush();
  assert.deepEqual(exits, [1]);
  assert.deepEqual(lines, ["loom stopping after a failure", "loom stopped"]);
  assert.deepEqual(
    timers.map((t) => t.ms),
    [5_000],
    "under the same deadline",
  );
  target.emit("SIGTERM");
  shutdown.failed(new Error("again"));
  assert.deepEqual(exits, [1], "once");
});
