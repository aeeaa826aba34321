import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import type { RunRecord } from "../emulator/emulator-state.ts";
import { dispatchesOf, type PullRecord } from "../e2e/e2e-requests.ts";
import { BOT, OWNER, REPO, startE2E, type E2E } from "../e2e/harness.ts";
import { planText, scriptStages, writeFiles } from "../e2e/model-script.ts";

/**
 * Hole 7: an approval pins what the approver saw, with a different SHA at each step. mallory (write,
 * below the repository's `minimum_role: maintain`) opens a plan a → b → c; alice (maintain) approves.
 * A comment written at one head and delivered after a later push, a button pressed on one head's
 * check run and delivered after a later push, and a SHA that is not the head approve nothing. A push
 * sent with loom's bot as sender that loom did not produce drops the approval; loom's own merge
 * (the SHA its merge answered, on top of the approved head) keeps it.
 */

const PLAN_PATH = "doc/plans/PLAN-pinned.md";
const PLAN = planText(
  "Pinned",
  `
- id: a
  name: First
  description: Write a.txt
  acceptance: ["grep -q alpha a.txt"]
- id: b
  name: Second
  description: Write b.txt
  dependencies: [a]
  acceptance: ["grep -q beta b.txt"]
- id: c
  name: Third
  description: Write c.txt
  dependencies: [b]
  acceptance: ["grep -q gamma c.txt"]
`,
);
const HEAD = "mallory-plan";

describe("an approval pins the head the approver saw", { timeout: 540_000 }, () => {
  let e2e: E2E;
  let pull: PullRecord;
  let hold = true;
  const held: RunRecord[] = [];
  /** The heads mallory pushed, in order. */
  let shaB = "";

  /** Waits until the app has nothing left to do (webhooks sent and processed, effects done). */
  async function quiet(): Promise<void> {
    // Not `emulator.settle()`: it waits for runner callbacks, and a held run's never returns.
    await e2e.waitFor("the app to be idle", async () => {
      const sent = e2e.emulator.deliveries.every((d) => d.dropped || d.attempts.length > 0);
      const backlog = await e2e.store.countBacklog();
      return sent && backlog.deliveries === 0 && backlog.effects === 0;
    });
  }

  async function planState(): Promise<PlanState> {
    const [record] = await e2e.store.listPlansForPull(OWNER, REPO, pull.number);
    assert.ok(record, "loom stored the plan");
    return readStoredPlan(record).state;
  }

  /** The head's push time on GitHub (to the second): anything later must be in a later second. */
  async function waitPastSecondOf(ms: number): Promise<void> {
    while (Math.floor(Date.now() / 1000) <= Math.floor(ms / 1000)) await sleep(100);
  }

  function pullUpdatedAt(): number {
    const found = e2e.emulator.state.pulls.find((p) => p.number === pull.number);
    assert.ok(found);
    return found.updatedAt;
  }

  function botReply(pattern: RegExp): string | undefined {
    return e2e.emulator.state.comments.find((c) => c.user === BOT && pattern.test(c.body))?.body;
  }

  const stagesDispatched = () => dispatchesOf(e2e.emulator.requests).map((d) => d.stageId);

  before(async () => {
    e2e = await startE2E({
      script: scriptStages({
        a: writeFiles({ "a.txt": "alpha\n" }),
        b: writeFiles({ "b.txt": "beta\n" }),
        c: writeFiles({ "c.txt": "gamma\n" }),
      }),
      permissions: { alice: "maintain", mallory: "write" },
      loomConfig: "workflow: loom.yml\nminimum_role: maintain\n",
    });
    // Stage runs wait for their runner while `hold` is set, so pushes land while they are queued.
    e2e.emulator.setRunner({
      dispatched: async (run) => {
        held.push(run);
        while (hold) await sleep(100);
        await e2e.runner.dispatched(run);
      },
      cancelRequested: (run) => e2e.runner.cancelRequested?.(run),
    });
    pull = await e2e.openPlan({ login: "mallory", head: HEAD, files: { [PLAN_PATH]: PLAN } });
    await e2e.waitFor("loom to hold the plan", () =>
      e2e.app.logs.some((line) => line["msg"] === "plan waits for /loom approve"),
    );
    await quiet();
  });
  after(async () => {
    hold = false;
    await e2e?.close();
  });

  it("a comment written at head A and delivered after push B approves neither", async () => {
    const a = pull.headSha;
    e2e.emulator.faults.webhook({ event: "issue_comment", action: "created", effect: "reorder" });
    const comment = await e2e.emulator.as("alice").comment(pull.number, "/loom approve");
    await waitPastSecondOf(comment.createdAt);
    const b = await e2e.emulator.as("mallory").push(HEAD, { "notes.txt": "pushed after the review\n" });
    shaB = b;
    await e2e.waitFor("loom's answer to the comment", () => botReply(/after this comment was written/));
    await quiet();
    const state = await planState();
    assert.equal(state.pr.headSha, b);
    assert.notEqual(b, a);
    assert.equal(state.approvedSha, null, "push B was approved by a comment written before it");
    assert.deepEqual(stagesDispatched(), []);
  });

  it("the Approve button on head B's check run, pressed before push C is processed, approves neither", async () => {
    const b = (await planState()).pr.headSha;
    const check = await e2e.waitFor("the plan's check run on B with its Approve button", async () =>
      (await e2e.checkRuns(pull)).find(
        (r) =>
          r.name === "loom: PLAN-pinned" &&
          r.headSha === b &&
          r.actions.some((x) => x.identifier === "approve"),
      ),
    );
    e2e.emulator.faults.webhook({ event: "check_run", action: "requested_action", effect: "reorder" });
    await e2e.emulator.as("alice").clickButton(check.id, "approve");
    const c = await e2e.emulator.as("mallory").push(HEAD, { "notes.txt": "and again\n" });
    await e2e.waitFor("loom's answer to the button", () => botReply(/The head moved to .* since/));
    await quiet();
    const state = await planState();
    assert.equal(state.pr.headSha, c);
    assert.equal(state.approvedSha, null, "push C was approved by a press on B's check run");
    assert.deepEqual(stagesDispatched(), []);
  });

  it("/loom approve <sha> approves only the head it names", async () => {
    const { pr } = await planState();
    const b = shaB;
    assert.ok(b !== "" && b !== pr.headSha);
    await e2e.emulator.as("alice").comment(pull.number, `/loom approve ${b}`);
    await e2e.waitFor("loom's refusal of a SHA that is not the head", () => botReply(/is not the head/));
    await quiet();
    assert.equal((await planState()).approvedSha, null);
    assert.deepEqual(stagesDispatched(), []);
    await e2e.emulator.as("alice").comment(pull.number, `/loom approve ${pr.headSha.slice(0, 7)}`);
    await e2e.waitFor("stage a to be dispatched", () => stagesDispatched().includes("a"), 60_000);
    const after = await planState();
    // The approved head, or loom's own commit on it (the IN_PROGRESS- rename keeps the approval).
    assert.equal(after.approvedSha, after.pr.headSha);
    assert.ok(
      after.pr.headSha === pr.headSha || (after.loomHeads ?? []).includes(after.pr.headSha),
      "the approval moved only onto a commit loom itself made",
    );
  });

  it("a push sent with loom's bot as sender is not loom's own: the approval is gone", async () => {
    // The IN_PROGRESS- rename follows the first dispatch: let it land first, or it lands on the push.
    await e2e.waitFor(
      "stage a's run to be queued and the plan file renamed",
      async () => held.length === 1 && (await planState()).planFile !== undefined,
    );
    const approved = (await planState()).approvedSha;
    const d = await e2e.emulator.as(BOT).push(HEAD, { "notes.txt": "pushed as the bot\n" });
    await quiet();
    const state = await planState();
    assert.equal(state.pr.headSha, d);
    assert.notEqual(approved, d);
    assert.equal(state.approvedSha, null, "a push loom did not produce kept the approval");
  });

  it("after loom merges stage a onto the unapproved head, stage b waits for a new approval", async () => {
    hold = false;
    await e2e.waitFor(
      "stage a to be merged",
      async () => (await planState()).stages["a"]?.merged === true,
      150_000,
    );
    await quiet();
    assert.equal((await planState()).approvedSha, null);
    assert.deepEqual(stagesDispatched(), ["a"]);
  });

  it("a comment written after the head was pushed approves it; loom's own merge keeps the approval", async () => {
    await waitPastSecondOf(pullUpdatedAt());
    const head = (await planState()).pr.headSha;
    await e2e.emulator.as("alice").comment(pull.number, "/loom approve");
    await e2e.waitFor("stage b to be dispatched", () => stagesDispatched().includes("b"), 60_000);
    assert.equal((await planState()).approvedSha, head);
    // b's merge is loom's own push on the approved head: c runs with no new approval.
    await e2e
      .waitFor("stage c to be merged", async () => (await planState()).stages["c"]?.merged === true, 240_000)
      .catch(() => undefined);
    const state = await planState();
    const summary = JSON.stringify({
      pr: state.pr,
      approvedSha: state.approvedSha,
      approvalLost: state.approvalLost,
      loomHeads: state.loomHeads,
      stages: Object.values(state.stages).map((st) => [st.id, st.status, st.merged, st.notes.at(-1)]),
      rejected: state.rejected.slice(-3),
    });
    assert.equal(state.stages["c"]?.merged, true, `${summary}\n${e2e.describe()}`);
    assert.deepEqual(stagesDispatched(), ["a", "b", "c"]);
    assert.equal(state.approvedSha, state.pr.headSha);
  });

  it("made only requests GitHub's OpenAPI description allows", () => {
    e2e.emulator.assertNoViolations();
  });
});
