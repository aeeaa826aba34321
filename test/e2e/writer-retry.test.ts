import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dispatchesOf, type PullRecord } from "./e2e-requests.ts";
import type { CommentRecord } from "../emulator/emulator-state.ts";
import { BOT, startE2E, type E2E } from "./harness.ts";
import { planText, rewriteFile, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-again.md";
const PLAN = planText(
  "Again",
  `
- id: greet
  name: Greeting
  description: Write greet.txt saying hello
  acceptance: ["grep -q hello greet.txt"]
`,
);

describe(
  "/loom retry re-runs a failed stage for a writer; a reader only gets a reply",
  { timeout: 200_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let readerReply: CommentRecord | undefined;
    let readerReaction: string | undefined;
    let dispatchesAfterReader = 0;
    before(async () => {
      e2e = await startE2E({
        script: scriptStages({
          "greet:1": writeFiles({ "greet.txt": "goodbye\n" }),
          "greet:2": rewriteFile("greet.txt", "hello\n"),
        }),
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      await e2e.waitFor(
        "the first attempt to fail its acceptance",
        async () =>
          (await e2e.checkRuns(pull)).find((r) => r.name === "loom: greet" && r.conclusion === "failure"),
        90_000,
      );
      // bob can read: loom answers where he asked and changes nothing.
      const asked = await e2e.emulator.as("bob").comment(pull.number, "/loom retry greet");
      readerReply = await e2e.waitFor("the reply to the reader", () =>
        e2e.emulator.state.comments.find(
          (c) => c.issueNumber === pull.number && c.user === BOT && c.body.includes("@bob"),
        ),
      );
      readerReaction = e2e.emulator.state.reactions.find(
        (r) => r.commentId === asked.id && r.user === BOT,
      )?.content;
      await e2e.app.engine.idle();
      dispatchesAfterReader = dispatchesOf(e2e.emulator.requests).length;
      await e2e.emulator.as("alice").comment(pull.number, "/loom retry greet");
      await e2e
        .waitFor(
          "the plan's check run to succeed",
          async () =>
            (await e2e.checkRuns(pull)).find(
              (r) => r.name === "loom: PLAN-again" && r.conclusion === "success",
            ),
          90_000,
        )
        .catch((error: unknown) => error);
    });
    after(async () => {
      await e2e?.close();
    });

    it("does not retry a failed acceptance by itself, and runs attempt 2 on the writer's command", () => {
      assert.deepEqual(
        dispatchesOf(e2e.emulator.requests).map((d) => [d.stageId, d.attempt]),
        [
          ["greet", "1"],
          ["greet", "2"],
        ],
      );
    });

    it("answers a reader's /loom retry with a reply and a thumbs-down, and dispatches nothing", () => {
      assert.ok(readerReply, "a reply");
      assert.match(readerReply.body, /did nothing: @bob has read access; loom needs write or above/);
      assert.equal(readerReaction, "-1");
      assert.equal(dispatchesAfterReader, 1, "only attempt 1 was dispatched before the writer asked");
    });

    it("ends green with the retried work on the pull request's branch", async () => {
      const plan = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: PLAN-again");
      assert.equal(plan?.conclusion, "success", e2e.describe());
      assert.equal(await e2e.readFile(pull.headRef, "greet.txt"), "hello\n");
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
    });
  },
);
