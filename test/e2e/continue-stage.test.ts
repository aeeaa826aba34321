import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CommentRecord } from "../emulator/emulator-state.ts";
import type { RecordedRequest } from "../support/fake-model-server.ts";
import { dispatchesOf, mergesOf, type PullRecord } from "./e2e-requests.ts";
import { BOT, startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages } from "./model-script.ts";
import { readFileSync } from "node:fs";
import path from "node:path";
import { LOOM_RELEASES } from "../../src/release/loom-releases.ts";

const PLAN_PATH = "doc/plans/PLAN-count.md";
const PLAN = planText(
  "Count",
  `
- id: c
  name: Counter
  description: Write count.txt describing how input is counted
  acceptance: ["grep -q input count.txt"]
`,
);
const INSTRUCTIONS = "also handle the empty case";
/** The example caller as a user copies it: it pins the newest release, which runs continue sessions. */
const CALLER = readFileSync(path.resolve(import.meta.dirname, "../../examples/loom.yml"), "utf8");

/**
 * The issue's acceptance for `/loom continue` (issue 35, item 3), through the real app, the real
 * stage workflow and action and the real Claude Code: a finished stage is continued by a writer's
 * comment; the scripted model's first request of the new run carries the earlier session's context
 * and the instructions (Claude Code's own resume, its state carried between the jobs as an
 * artifact); the new result is merged by SHA; a reader's continue is refused.
 */
describe(
  "/loom continue resumes a finished stage's session with a writer's instructions and merges the result",
  { timeout: 240_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let readerReply: CommentRecord | undefined;
    let dispatchesAfterReader = 0;
    const firstRequests = new Map<number, RecordedRequest>();
    before(async () => {
      assert.ok(
        CALLER.includes(`loom-stage.yml@${LOOM_RELEASES.at(-1)?.sha ?? "?"}`),
        "examples/loom.yml pins the newest release",
      );
      e2e = await startE2E({
        files: { ".github/workflows/loom.yml": CALLER },
        script: scriptStages({
          "c:1": (job) => [
            {
              blocks: [
                {
                  type: "tool_use",
                  name: "Write",
                  input: {
                    file_path: path.join(job.workspace, "count.txt"),
                    content: "counts every input line\n",
                  },
                },
              ],
            },
            { blocks: [{ type: "text", text: "count.txt now counts every input line." }] },
          ],
          "c:2": (job) => [
            {
              blocks: [
                {
                  type: "tool_use",
                  name: "Write",
                  input: {
                    file_path: path.join(job.workspace, "empty.txt"),
                    content: "empty input counts 0\n",
                  },
                },
              ],
            },
            { blocks: [{ type: "text", text: "Done." }] },
          ],
        }),
        onRunnerEvent: (event) => {
          const first =
            event.type === "job.finished" ? event.modelRequests?.find((r) => r.kind === "main") : undefined;
          if (first !== undefined) firstRequests.set(event.runId, first);
        },
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      await e2e.waitFor(
        "c to be merged",
        () => mergesOf(e2e.emulator.requests).some((m) => m.status === 201),
        90_000,
      );
      await e2e.app.engine.idle();
      // bob can read: loom answers where he asked and starts nothing.
      const asked = await e2e.emulator.as("bob").comment(pull.number, '/loom continue c "delete the tests"');
      readerReply = await e2e.waitFor("the reply to the reader", () =>
        e2e.emulator.state.comments.find((c) => c.user === BOT && c.body.includes("@bob") && c.id > asked.id),
      );
      await e2e.app.engine.idle();
      dispatchesAfterReader = dispatchesOf(e2e.emulator.requests).length;
      await e2e.emulator.as("alice").comment(pull.number, `/loom continue c "${INSTRUCTIONS}"`);
      await e2e
        .waitFor(
          "the continue's work to be merged",
          // GitHub's answer to the merge is recorded after the branch moved: wait for the answer.
          () => mergesOf(e2e.emulator.requests).filter((m) => m.status === 201).length >= 2,
          120_000,
        )
        .catch((error: unknown) => error);
    });
    after(async () => {
      await e2e?.close();
    });

    it("answers a reader's /loom continue with a refusal and starts nothing", () => {
      assert.match(readerReply?.body ?? "", /did nothing: @bob has read access; loom needs write or above/);
      assert.equal(dispatchesAfterReader, 1);
    });

    it("runs the writer's continue as a new attempt of c whose first request carries the earlier session and the instructions", () => {
      const dispatches = dispatchesOf(e2e.emulator.requests);
      assert.deepEqual(
        dispatches.map((d) => [d.stageId, d.attempt, d.kind]),
        [
          ["c", "1", "stage"],
          ["c", "2", "continue"],
        ],
        e2e.describe(),
      );
      const run = e2e.emulator.state.runs.find((r) => r.inputs["kind"] === "continue");
      const first = JSON.stringify(firstRequests.get(run?.id ?? 0)?.body?.messages ?? []);
      assert.match(first, /count\.txt now counts every input line\./, "the earlier session's answer");
      assert.match(
        first,
        /"name":"Write","input":\{"file_path":"[^"]*count\.txt"/,
        "the earlier session's tool use",
      );
      assert.match(first, /Instructions from @alice/);
      assert.match(first, /<instructions>\\nalso handle the empty case\\n<\/instructions>/);
    });

    it("merges the new result by SHA and says on c's check run who continued it, with what, and that the session was resumed", async () => {
      const merges = mergesOf(e2e.emulator.requests).filter((m) => m.status === 201);
      assert.equal(merges.length, 2, e2e.describe());
      assert.ok(
        merges.every((m) => m.sha !== null),
        "each merge by the SHA its checks ran on",
      );
      assert.equal(await e2e.readFile(pull.headRef, "empty.txt"), "empty input counts 0\n");
      await e2e.waitFor("the plan's check run to succeed again", async () =>
        (await e2e.checkRuns(pull)).find((r) => r.name === "loom: PLAN-count" && r.conclusion === "success"),
      );
      const check = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: c");
      const summary = check?.output.summary ?? "";
      assert.match(summary, /### Continued by @&#8203;alice \(attempt 2, from attempt 1\)/);
      assert.match(summary, /> also handle the empty case/);
      assert.match(summary, /Resumed Claude Code's own session of run/);
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
    });
  },
);
