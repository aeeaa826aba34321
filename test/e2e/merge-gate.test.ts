import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CheckRunRecord, CommentRecord } from "../emulator/emulator-state.ts";
import { dispatchesOf, mergesOf, type Dispatch, type Merge, type PullRecord } from "./e2e-requests.ts";
import { BOT, startE2E, type E2E } from "./harness.ts";
import { waitForReply } from "./wait-for-reply.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-gate.md";
const PLAN = planText(
  "Gate",
  `
- id: a
  name: Reviewed
  description: Write a.txt
  auto_merge: false
  acceptance: ["grep -q reviewed a.txt"]
- id: b
  name: After
  description: Write b.txt once a is merged
  dependencies: [a]
  acceptance: ["grep -q after b.txt"]
`,
);

/**
 * `auto_merge: false` through the real app, the real action and Claude Code: stage `a` passes and
 * waits for a person with its check run saying so; a reader's `/loom merge a` and a writer's naming
 * a stale commit are refused where they were written; a writer's `/loom merge a` merges the
 * checked commit by SHA, and only then does `b` start.
 */
describe(
  "a stage whose plan says auto_merge: false waits for a writer's /loom merge",
  { timeout: 200_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let waiting: CheckRunRecord | undefined;
    let checked: string | null = null;
    /** A real commit that is not the checked one: the pull request's head when it opened. */
    let stale = "";
    const replies: Record<string, CommentRecord> = {};
    let mergesBefore: Merge[] = [];
    let dispatchedBefore: string[] = [];
    let merge: Merge | undefined;
    let dispatchOfB: Dispatch | undefined;
    const dispatched = () => dispatchesOf(e2e.emulator.requests);

    before(async () => {
      e2e = await startE2E({
        script: scriptStages({
          a: writeFiles({ "a.txt": "reviewed\n" }),
          b: writeFiles({ "b.txt": "after\n" }),
        }),
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      // A copy: the emulator updates its record in place when a is merged later.
      waiting = structuredClone(
        await e2e.waitFor(
          "a's check run to wait for a person",
          async () =>
            (await e2e.checkRuns(pull)).find(
              (r) => r.name === "loom: a" && r.conclusion === "action_required",
            ),
          90_000,
        ),
      );
      checked = await e2e.emulator.repo().git.readBranch(`loom/pr-${pull.number}/PLAN-gate/a`);
      const bobs = await e2e.emulator.as("bob").comment(pull.number, "/loom merge a");
      replies["reader"] = await e2e.waitFor("the reply to the reader", () =>
        e2e.emulator.state.comments.find((c) => c.user === BOT && c.body.includes("@bob") && c.id > bobs.id),
      );
      const alice = e2e.emulator.as("alice");
      stale = pull.headSha;
      replies["stale"] = await waitForReply(e2e, await alice.comment(pull.number, `/loom merge a ${stale}`));
      await e2e.app.engine.idle();
      mergesBefore = mergesOf(e2e.emulator.requests);
      dispatchedBefore = dispatched().map((d) => d.stageId);
      // GitHub stamps a comment to the second, and loom counts a comment in the second a stage
      // started waiting as written before it (merge-by-person.ts): a person reads first.
      await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 5));
      await alice.comment(pull.number, "/loom merge a");
      dispatchOfB = await e2e.waitFor(
        "b to start",
        () => dispatched().find((d) => d.stageId === "b"),
        60_000,
      );
      merge = mergesOf(e2e.emulator.requests).find((m) => m.head.endsWith("/a") && m.status === 201);
    });
    after(async () => {
      await e2e?.close();
    });

    it("holds a after its checks pass: its check run asks a person to merge the checked commit, with a Merge button", () => {
      assert.ok(checked, e2e.describe());
      assert.match(waiting?.output.title ?? "", /^Reviewed: waiting for a person to merge$/);
      assert.ok(
        waiting?.output.summary?.includes(`the checks passed on \`${checked}\``),
        waiting?.output.summary ?? "",
      );
      assert.deepEqual(
        waiting?.actions.map((a) => a.identifier),
        [`merge:${checked.slice(0, 14)}`, "retry", "skip"],
      );
      assert.deepEqual(dispatchedBefore, ["a"], "b waits while a is not merged");
    });

    it("refuses a reader's /loom merge and a writer's naming a stale commit, merging nothing", () => {
      assert.match(
        replies["reader"]?.body ?? "",
        /did nothing: @bob has read access; loom needs write or above/,
      );
      assert.ok(
        replies["stale"]?.body.includes(
          `loom could not merge \`a\`: \`${stale}\` is not the commit the checks of \`a\` ran on (${checked?.slice(0, 7)})`,
        ),
        replies["stale"]?.body,
      );
      assert.deepEqual(mergesBefore, []);
    });

    it("merges exactly the checked commit on a writer's /loom merge, and only then starts b", () => {
      assert.equal(merge?.sha, checked, e2e.describe());
      assert.equal(merge?.base, pull.headRef);
      assert.ok(merge && dispatchOfB && merge.index < dispatchOfB.index, "b is dispatched after a's merge");
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
    });
  },
);
