import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CheckRunRecord, CommentRecord, RunRecord } from "../emulator/emulator-state.ts";
import { dispatchesOf, mergesOf, type PullRecord } from "./e2e-requests.ts";
import { BOT, startE2E, type E2E } from "./harness.ts";
import { waitForReply } from "./wait-for-reply.ts";
import { planText, scriptStages, stayBusy, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-steer.md";
const PLAN = planText(
  "Steer",
  `
- id: slow
  name: Slow
  description: Take a long time over slow.txt
  acceptance: ["grep -q slow slow.txt"]
- id: held
  name: Held
  description: Write held.txt
  acceptance: ["grep -q held held.txt"]
- id: dropped
  name: Dropped
  description: Write dropped.txt
  acceptance: ["grep -q dropped dropped.txt"]
- id: after
  name: After
  description: Write after.txt once dropped is done
  dependencies: [dropped]
  acceptance: ["grep -q after after.txt"]
`,
);

/**
 * Every `/loom` command through the real app and real runs: `block` keeps a stage from starting
 * until `unblock`; `skip` never starts a stage and lets its dependent run; `cancel` stops a
 * running session on GitHub; `status` and `help` answer; a reader's command changes nothing.
 */
describe(
  "/loom block, unblock, skip, cancel, status and help act as documented",
  { timeout: 200_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let heldWhileBlocked: CheckRunRecord | undefined;
    let dispatchedWhileBlocked: string[] = [];
    let slowRun: RunRecord | undefined;
    const replies: Record<string, CommentRecord> = {};
    const stagesDispatched = () => dispatchesOf(e2e.emulator.requests).map((d) => d.stageId);
    const merged = (id: string) =>
      mergesOf(e2e.emulator.requests).some((m) => m.head.endsWith(`/${id}`) && m.status === 201);
    /**
     * A stage's newest check run on any head: finished stages keep theirs on the head they finished
     * on; running ones and those that need a person move to the newest head.
     */
    const checkRun = (id: string): CheckRunRecord | undefined =>
      e2e.emulator.state.checkRuns
        .filter((r) => r.app === BOT && r.name === `loom: ${id}`)
        .reduce<CheckRunRecord | undefined>(
          (newest, r) => (newest && newest.id > r.id ? newest : r),
          undefined,
        );
    const replyTo = (asked: CommentRecord) => waitForReply(e2e, asked);

    before(async () => {
      e2e = await startE2E({
        permissions: { alice: "write", bob: "read" },
        // One session at a time: the stages after `slow` wait in line, so a command reaches them
        // before they could start.
        loomConfig: "workflow: loom.yml\nmax_parallel: 1\n",
        script: scriptStages({
          slow: stayBusy(60),
          held: writeFiles({ "held.txt": "held\n" }),
          after: writeFiles({ "after.txt": "after\n" }),
        }),
      });
      const alice = e2e.emulator.as("alice");
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      await e2e.waitFor("slow to start", () => stagesDispatched().includes("slow"));
      await alice.comment(pull.number, "/loom block held\n/loom skip dropped");
      // bob can read: his command is refused where he wrote it.
      const bobs = await e2e.emulator.as("bob").comment(pull.number, "/loom unblock held");
      replies["reader"] = await e2e.waitFor("the reply to the reader", () =>
        e2e.emulator.state.comments.find((c) => c.user === BOT && c.body.includes("@bob") && c.id > bobs.id),
      );
      replies["status"] = await replyTo(await alice.comment(pull.number, "/loom status"));
      replies["help"] = await replyTo(await alice.comment(pull.number, "/loom help"));

      slowRun = await e2e.waitFor("slow's run to be in progress", () =>
        e2e.emulator.state.runs.find((r) => r.inputs["stage_id"] === "slow" && r.status === "in_progress"),
      );
      await alice.comment(pull.number, "/loom cancel slow");
      await e2e.waitFor("after, the dependent of the skipped stage, to start", () =>
        stagesDispatched().includes("after"),
      );
      heldWhileBlocked = checkRun("held");
      await e2e.waitFor("after to be merged", () => merged("after"), 90_000);
      dispatchedWhileBlocked = stagesDispatched();
      await alice.comment(pull.number, "/loom unblock held");
      await e2e
        .waitFor("held to start", () => stagesDispatched().includes("held"), 60_000)
        .catch((error: unknown) => error);
    });
    after(async () => {
      await e2e?.close();
    });

    it("answers a reader's command with a refusal, and changes nothing", () => {
      assert.match(
        replies["reader"]?.body ?? "",
        /did nothing: @bob has read access; loom needs write or above/,
      );
      assert.ok(!dispatchedWhileBlocked.includes("held"), "bob's unblock did not count");
    });

    it("answers /loom status with every stage's status and /loom help with the commands and stages", () => {
      const status = replies["status"]?.body ?? "";
      assert.match(status, /\*\*Steer\*\* \(`PLAN-steer`\)/);
      assert.match(status, /- `slow`: executing, attempt 1/);
      assert.match(status, /- `held`: blocked/);
      assert.match(status, /- `dropped`: skipped/);
      assert.match(replies["help"]?.body ?? "", /`\/loom cancel <stage>`: cancel its running session/);
      assert.match(replies["help"]?.body ?? "", /- PLAN-steer: `slow`, `held`, `dropped`, `after`/);
    });

    it("cancels the running session on GitHub; its check run fails, says who cancelled it and offers Retry", () => {
      const run = e2e.emulator.state.runs.find((r) => r.id === slowRun?.id);
      assert.equal(run?.conclusion, "cancelled", e2e.describe());
      assert.ok(
        e2e.emulator.requests.some(
          (r) =>
            r.operationId === "actions/cancel-workflow-run" && r.path.endsWith(`/runs/${run?.id}/cancel`),
        ),
      );
      const check = checkRun("slow");
      assert.equal(check?.conclusion, "failure");
      assert.match(check?.output.summary ?? "", /cancelled by @(&#8203;)?alice/);
      assert.deepEqual(
        check?.actions.map((a) => a.identifier),
        ["retry", "skip"],
      );
      assert.equal(stagesDispatched().filter((id) => id === "slow").length, 1, "no automatic retry");
    });

    it("never dispatches the skipped stage; its check run ends skipped and its dependent runs", async () => {
      assert.ok(!stagesDispatched().includes("dropped"));
      const dropped = checkRun("dropped");
      assert.equal(dropped?.conclusion, "skipped");
      assert.deepEqual(dropped?.actions, [], "nothing left to press on a skipped stage");
      assert.equal(await e2e.readFile(pull.headRef, "after.txt"), "after\n");
      assert.equal(await e2e.readFile(pull.headRef, "dropped.txt"), null);
    });

    it("does not dispatch the blocked stage until /loom unblock, then starts it", () => {
      assert.deepEqual(dispatchedWhileBlocked, ["slow", "after"]);
      assert.equal(heldWhileBlocked?.conclusion, "failure");
      assert.match(heldWhileBlocked?.output.summary ?? "", /blocked by @(&#8203;)?alice/);
      assert.deepEqual(stagesDispatched(), ["slow", "after", "held"], e2e.describe());
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
    });
  },
);
