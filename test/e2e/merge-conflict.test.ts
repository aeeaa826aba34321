import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CommentRecord } from "../emulator/emulator-state.ts";
import { dispatchesOf, mergesOf, type PullRecord } from "./e2e-requests.ts";
import { BOT, startE2E, type E2E } from "./harness.ts";
import { planText, resolveConflict, rewriteFile, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-clash.md";
const BASE = "title\nvalue = base\nend\n";
const RESOLVED = "title\nvalue = left and right\nend\n";
const PLAN = planText(
  "Clash",
  `
- id: a
  name: Settings file
  description: Write settings.txt with a base value on its second line
  acceptance: ["grep -q 'value = base' settings.txt"]
- id: left
  name: Left value
  description: Set the value on line two to left
  dependencies: [a]
  acceptance: ["grep -q 'value = left' settings.txt"]
- id: right
  name: Right value
  description: Set the value on line two to right
  dependencies: [a]
  acceptance: ["grep -q 'right' settings.txt"]
- id: join
  name: Join
  description: Check both values made it
  dependencies: [left, right]
  acceptance: ["grep -q 'left and right' settings.txt"]
`,
);

describe(
  "two parallel stages edit the same line: the second merge conflicts, a merge session resolves it",
  { timeout: 280_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let readerCommand: CommentRecord;
    before(async () => {
      e2e = await startE2E({
        script: scriptStages({
          a: writeFiles({ "settings.txt": BASE }),
          left: rewriteFile("settings.txt", "title\nvalue = left\nend\n"),
          right: rewriteFile("settings.txt", "title\nvalue = right\nend\n"),
          "left:merge": resolveConflict("settings.txt", RESOLVED),
          "right:merge": resolveConflict("settings.txt", RESOLVED),
          join: writeFiles({ "join.txt": "joined\n" }),
        }),
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
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
      assert.equal(await e2e.readFile(pull.headRef, "settings.txt"), RESOLVED);
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
