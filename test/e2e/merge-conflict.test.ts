import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CommentRecord } from "../emulator/emulator-state.ts";
import { dispatchesOf, mergesOf, type PullRecord } from "./e2e-requests.ts";
import { BOT, startE2E, type E2E } from "./harness.ts";
import { CLASH_PLAN, CLASH_RESOLVED } from "./sample-plans.ts";

describe(
  "two parallel stages edit the same line: the second merge conflicts, a merge session resolves it",
  { timeout: 280_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let readerCommand: CommentRecord;
    before(async () => {
      e2e = await startE2E({
        script: CLASH_PLAN.script,
      });
      pull = await e2e.openPlan({ files: { [CLASH_PLAN.path]: CLASH_PLAN.text } });
      await e2e.waitFor(
        "stage a to be merged",
        () => mergesOf(e2e.emulator.requests).some((m) => m.head.endsWith("/a") && m.status === 201),
        120_000,
      );
      readerCommand = await e2e.emulator.as("bob").comment(pull.number, "/loom retry a");
      await e2e.waitFor(
        "the plan's check run to complete",
        async () =>
          (await e2e.checkRuns(pull)).find((r) => r.name === "loom: PLAN-clash" && r.status === "completed"),
        240_000,
      );
    });
    after(async () => {
      await e2e?.close();
    });

    it("completes the plan with both values resolved on the pull request's branch", async () => {
      const plan = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: PLAN-clash");
      assert.equal(plan?.conclusion, "success", e2e.describe());
      assert.equal(await e2e.readFile(pull.headRef, "settings.txt"), CLASH_RESOLVED);
      assert.equal(await e2e.readFile(pull.headRef, "join.txt"), "joined\n");
    });

    it("got a real 409 from git, ran a merge session for that stage, then merged it", () => {
      const merges = mergesOf(e2e.emulator.requests);
      const conflict = merges.find((m) => m.status === 409);
      assert.ok(conflict, `a merge conflicted: ${JSON.stringify(merges)}`);
      const stage = conflict.head.split("/").at(-1) ?? "";
      const mergeSession = dispatchesOf(e2e.emulator.requests).find(
        (d) => d.kind === "merge" && d.stageId === stage,
      );
      assert.ok(mergeSession, "a merge session was dispatched for the conflicting stage");
      assert.ok(mergeSession.index > conflict.index);
      const merged = merges.find(
        (m) => m.head === conflict.head && m.status === 201 && m.index > mergeSession.index,
      );
      assert.ok(merged, "the stage merged after its merge session");
    });

    it("ignores /loom retry from a reader except for a reply", () => {
      const reactions = e2e.emulator.state.reactions.filter((r) => r.commentId === readerCommand.id);
      assert.ok(
        reactions.some((r) => r.user === BOT),
        "loom answered the reader's command",
      );
      const retried = dispatchesOf(e2e.emulator.requests).filter((d) => d.stageId === "a");
      assert.equal(retried.length, 1, "stage a ran once");
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
      assert.deepEqual(e2e.emulator.runnerErrors, []);
    });
  },
);
