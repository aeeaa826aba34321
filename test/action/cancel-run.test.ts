import { sandboxDeps } from "./sandbox-deps.ts";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { EventEmitter, once } from "node:events";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, it, test } from "node:test";
import { abortOnSignals } from "../../action/src/abort-on-signals.ts";
import { runStage } from "../../action/src/run-stage.ts";
import { RunStageInputs } from "../../action/src/run-stage-inputs.ts";
import { runSession, type RunSessionOptions } from "../../action/src/session/run-session.ts";
import { isProcessGroupAlive } from "../../action/src/session/kill-process-group.ts";
import { startFakeModelServer } from "../support/fake-model-server.ts";
import { CLAUDE_PATH, createSandbox } from "../support/fake-model-sandbox.ts";
import { deps, finishedSession, inputs, makeFixture, planText, readJson } from "./run-stage-fixture.ts";

const ABORT_ON_SIGNALS = path.resolve(import.meta.dirname, "../../action/src/abort-on-signals.ts");

describe("abortOnSignals", () => {
  it("turns the first SIGINT or SIGTERM into an abort naming the signal, and ignores later ones", () => {
    const source = new EventEmitter();
    const lines: string[] = [];
    const cancel = abortOnSignals(source, (line) => lines.push(line));
    assert.equal(cancel.signal.aborted, false);
    source.emit("SIGINT", "SIGINT");
    assert.equal(cancel.signal.aborted, true);
    assert.equal(cancel.signal.reason, "SIGINT");
    source.emit("SIGTERM", "SIGTERM");
    assert.equal(cancel.signal.reason, "SIGINT", "the first signal stays the reason");
    assert.equal(lines.length, 2);
    assert.match(lines[1] ?? "", /SIGTERM received; still writing/);
  });

  it("stops listening once disposed", () => {
    const source = new EventEmitter();
    const cancel = abortOnSignals(source);
    assert.equal(source.listenerCount("SIGINT") + source.listenerCount("SIGTERM"), 2);
    cancel.dispose();
    assert.equal(source.listenerCount("SIGINT") + source.listenerCount("SIGTERM"), 0);
    assert.equal(cancel.signal.aborted, false);
  });

  it(
    "keeps a real process alive through SIGINT so it can finish its cleanup",
    { timeout: 20_000 },
    async () => {
      const code = [
        `const { abortOnSignals } = await import(${JSON.stringify(pathToFileURL(ABORT_ON_SIGNALS).href)});`,
        "const cancel = abortOnSignals(process);",
        'console.log("ready");',
        "const keepAlive = setInterval(() => {}, 1000);",
        'cancel.signal.addEventListener("abort", async () => {',
        "  await new Promise((r) => setTimeout(r, 300));",
        "  console.log(`cleaned up after ${cancel.signal.reason}`);",
        "  clearInterval(keepAlive);",
        "  cancel.dispose();",
        "});",
      ].join("\n");
      const child = spawn(process.execPath, ["--input-type=module", "-e", code], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      for (let i = 0; i < 200 && !output.includes("ready"); i++) await sleep(50);
      child.kill("SIGINT");
      const [exitCode, signal] = (await once(child, "exit")) as [number | null, string | null];
      assert.equal(signal, null, "not killed by the signal");
      assert.equal(exitCode, 0);
      assert.match(output, /cleaned up after SIGINT/);
    },
  );
});

describe("runStage with a cancel", () => {
  const STAGE = `
- id: build
  name: Build
  description: Write greet.txt
  acceptance: ["grep hello greet.txt"]
`;

  it("cancelled before the session: no session, no checks, loom-result says cancelled", async (t) => {
    const f = await makeFixture(STAGE, t);
    const controller = new AbortController();
    controller.abort("SIGINT");
    let sessions = 0;
    const { result } = await runStage(
      inputs(),
      deps(
        f,
        async (o) => {
          sessions++;
          return finishedSession(o);
        },
        { signal: controller.signal },
      ),
    );
    assert.equal(sessions, 0);
    assert.equal(result.outcome, "cancelled");
    assert.deepEqual(result.checks, []);
    assert.match(result.handoff ?? "", /its run was cancelled/);
  });

  it("cancelled after a finished session: the checks are not run and the outcome is cancelled", async (t) => {
    const f = await makeFixture(STAGE, t);
    const controller = new AbortController();
    const { result } = await runStage(
      inputs(),
      deps(
        f,
        async (o) => {
          await writeFile(path.join(f.workspace, "greet.txt"), "hello\n");
          controller.abort("SIGTERM");
          return finishedSession(o);
        },
        { signal: controller.signal },
      ),
    );
    assert.equal(result.outcome, "cancelled");
    assert.match(result.reason, /cancelled after the session ended/);
    assert.deepEqual(result.checks, [], "acceptance did not run");
  });

  it("a cancelled session's result is uploaded before the bundle and transcript", async (t) => {
    const f = await makeFixture(STAGE, t);
    const order: string[] = [];
    const base = deps(f, (o) =>
      finishedSession(o, {
        status: "cancelled",
        reason: "the run was cancelled (SIGINT)",
        handoff: {
          stage_id: "build",
          attempt: 1,
          session_id: "s-1",
          reason: "cancelled",
          created_at: new Date().toISOString(),
          context_percent: 3,
          summary: "1 turns, 1 tool uses; last: Write greet.txt.",
          remaining: [],
          files_touched: ["greet.txt"],
          recent_activity: ["Write greet.txt"],
          hook_notes: null,
          last_heartbeat: null,
        },
      }),
    );
    const { result } = await runStage(inputs(), {
      ...base,
      uploadArtifact: async (name, files, root) => {
        order.push(name);
        await base.uploadArtifact(name, files, root);
      },
    });
    assert.equal(result.outcome, "cancelled");
    assert.deepEqual(order, ["loom-result", "loom-bundle", "loom-transcript"]);
    assert.match(result.handoff ?? "", /- greet\.txt/);
  });
});

test(
  "with the real Claude Code: a cancel while the model stalls ends the session at once and leaves a handoff of its work",
  { timeout: 60_000 },
  async (t) => {
    const box = createSandbox();
    const uploads = await mkdtemp(path.join(tmpdir(), "loom-cancel-uploads-"));
    t.after(async () => {
      box.cleanup();
      await rm(uploads, { recursive: true, force: true });
    });
    await mkdir(path.join(box.repo, "doc/plans"), { recursive: true });
    await writeFile(
      path.join(box.repo, "doc/plans/PLAN-demo.md"),
      planText(`
- id: build
  name: Build
  description: Write greet.txt
  acceptance: ["grep hello greet.txt"]
`),
    );
    box.git("add", ".");
    box.git("commit", "-q", "-m", "plan");
    const server = await startFakeModelServer({
      turns: [
        {
          blocks: [
            {
              type: "tool_use",
              name: "Write",
              input: { file_path: path.join(box.repo, "greet.txt"), content: "hello\n" },
            },
          ],
        },
        { blocks: [{ type: "text", text: "never sent" }], stall: "forever" },
      ],
    });
    t.after(() => server.close());
    const controller = new AbortController();
    let session: RunSessionOptions | null = null;
    let pgid: number | null = null;
    const order: string[] = [];
    const runDeps = sandboxDeps(box, server.url, {
      runSession: async (o) => {
        session = o;
        const outcome = await runSession(o);
        pgid = outcome.processGroupId ?? null;
        return outcome;
      },
      uploadArtifact: async (name, files, rootDirectory) => {
        order.push(name);
        for (const file of files)
          await cp(file, path.join(uploads, name, path.relative(rootDirectory, file)));
      },
      signal: controller.signal,
    });
    const running = runStage(
      RunStageInputs.parse({
        plan_path: "doc/plans/PLAN-demo.md",
        plan_id: "PLAN-demo",
        stage_id: "build",
        attempt: "1",
        branch: "main",
        silence_timeout_minutes: "5",
        check_timeout_minutes: "1",
        allowed_tools: "Read,Write,Edit",
        claude_path: CLAUDE_PATH,
      }),
      runDeps,
    );
    // The Write ran and the model was asked for the next turn, which never comes.
    for (let i = 0; i < 600 && server.mainRequests().length < 2; i++) await sleep(50);
    assert.equal(server.mainRequests().length, 2, "the session reached the stalled request");
    assert.ok(existsSync(path.join(box.repo, "greet.txt")));
    controller.abort("SIGINT");
    const { result, resultFile } = await running;

    assert.ok(session !== null);
    assert.equal(result.outcome, "cancelled");
    assert.match(result.reason, /cancelled \(SIGINT\)/);
    assert.deepEqual(result.checks, [], "no checks after a cancel");
    assert.match(result.handoff ?? "", /its run was cancelled/);
    assert.match(result.handoff ?? "", /## Files touched\n\n- greet\.txt/);
    assert.match(result.handoff ?? "", /Write greet\.txt/);
    assert.deepEqual(
      order.filter((name) => !name.startsWith("loom-heartbeat-")),
      // Claude Code's session state last: a cancelled session can still be continued.
      ["loom-result", "loom-bundle", "loom-transcript", "loom-session"],
      "the result is uploaded first",
    );
    assert.deepEqual(
      await readJson(path.join(uploads, "loom-result", "loom-result.json")),
      await readJson(resultFile),
    );
    assert.doesNotMatch(JSON.stringify(result), /sk-ant-test-not-a-key/);
    assert.ok(pgid !== null);
    assert.equal(isProcessGroupAlive(pgid), false, "Claude Code's process group is gone");
  },
);
