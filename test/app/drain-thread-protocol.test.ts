import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { DrainThreadError, startDrainThread } from "../../app/drain/start-drain-thread.ts";

/**
 * The webhook thread's side of the drain thread (`startDrainThread`), against small worker scripts
 * that speak the protocol (or break it) the ways the real `drain-thread.ts` can: the real one runs
 * under `npm start` in the signal, metrics and bench tests.
 */
const dir = mkdtempSync(join(tmpdir(), "loom-drain-protocol-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function script(name: string, body: string): URL {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, `import { parentPort, workerData } from "node:worker_threads";\n${body}\n`);
  return pathToFileURL(file);
}

const DATA = { env: { LOOM_WORKER_ID: "w" }, workerId: "w", writeGate: new SharedArrayBuffer(4) };

/** Answers like the real thread: counts wakes and receipts, serves them as metrics, stops on request. */
const WELL_BEHAVED = script(
  "well-behaved",
  `let news = 0; let wakes = 0; const received = [];
parentPort.on("message", (m) => {
  if (m.type === "news") { news++; if (m.wake) wakes++; for (const [e, n] of Object.entries(m.received)) received.push(e + "×" + n); }
  if (m.type === "metrics") parentPort.postMessage({ type: "metrics", id: m.id, contentType: "text/plain; version=0.0.4", text: "news " + news + "\\nwakes " + wakes + "\\nreceived " + received.join(",") + "\\nworker " + workerData.workerId + "\\n" });
  if (m.type === "stop") { parentPort.postMessage({ type: "stopped", ok: workerData.env.STOP_OK !== "no", abandoned: m.graceMs === 0 }); parentPort.close(); }
});
parentPort.postMessage({ type: "ready" });`,
);

describe("the drain thread, seen from the webhook thread", () => {
  it("starts, is woken, counts receipts, answers a scrape, and stops when asked (no failure reported)", async () => {
    const failures: unknown[] = [];
    const thread = startDrainThread(DATA, (error) => failures.push(error), WELL_BEHAVED);
    await thread.ready;
    thread.received("issue_comment");
    thread.wake();
    thread.received("issue_comment");
    thread.received("pull_request");
    thread.wake();
    const { text } = await thread.readMetrics();
    assert.equal(
      text,
      "news 1\nwakes 1\nreceived issue_comment×2,pull_request×1\nworker w\n",
      "a burst is one message, sent before the scrape",
    );
    assert.deepEqual(await thread.stop(0), { abandoned: true }, "the grace was passed on");
    assert.deepEqual(failures, []);
    await assert.rejects(thread.readMetrics(), DrainThreadError, "nothing to scrape once it ended");
  });

  it("a stop with a failed step rejects, for the shutdown to exit 1", async () => {
    const thread = startDrainThread({ ...DATA, env: { STOP_OK: "no" } }, () => undefined, WELL_BEHAVED);
    await thread.ready;
    await assert.rejects(thread.stop(2_000), /stopped with errors/);
  });

  it("a thread that ends unexpectedly is reported once, and scrapes waiting for it fail", async () => {
    const dies = script(
      "dies",
      `parentPort.on("message", (m) => { if (m.type === "news") process.exit(3); });
parentPort.postMessage({ type: "ready" });`,
    );
    const failures: DrainThreadError[] = [];
    let reported: () => void = () => undefined;
    const failed = new Promise<void>((resolve) => (reported = resolve));
    const thread = startDrainThread(
      DATA,
      (error) => {
        failures.push(error);
        reported();
      },
      dies,
    );
    await thread.ready;
    const scrape = thread.readMetrics();
    thread.wake();
    await failed;
    await assert.rejects(scrape, DrainThreadError);
    assert.equal(failures.length, 1);
    assert.match(failures[0]!.message, /ended unexpectedly \(exit code 3\)/);
  });

  it("a thread that fails to start rejects `ready` with the cause", async () => {
    const throws = script("throws", `throw new Error("no store");`);
    const failures: unknown[] = [];
    const thread = startDrainThread(DATA, (error) => failures.push(error), throws);
    const error = await thread.ready.then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(error instanceof DrainThreadError);
    assert.match(String((error.cause as Error).message), /no store/);
    assert.equal(failures.length, 1, "reported too, for a caller past start-up");
  });
});
