import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CheckRunRecord } from "../emulator/emulator-state.ts";
import { findLabel } from "../emulator/repo-labels.ts";
import { dispatchesOf, mergesOf, type PullRecord } from "./e2e-requests.ts";
import { BOT, startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-labels.md";
const PLAN_CHECK = "loom: PLAN-labels";
const PLAN = planText(
  "Labels",
  `
- id: first
  name: First
  description: Write first.txt
  acceptance: ["grep -q one first.txt"]
- id: extra
  name: Extra
  description: Write extra.txt
  dependencies: [first]
  acceptance: ["grep -q extra extra.txt"]
- id: tail
  name: Tail
  description: Write tail.txt after extra
  dependencies: [extra]
  acceptance: ["grep -q tail tail.txt"]
- id: last
  name: Last
  description: Write last.txt
  dependencies: [first]
  acceptance: ["grep -q last last.txt"]
`,
);

const LOOM_LABELS = [
  "loom:hold",
  ...["first", "extra", "tail", "last"].flatMap((id) => [`loom:skip:${id}`, `loom:block:${id}`]),
];

/**
 * One plan, three labels: `loom:skip:extra` (a writer's, later removed: the skip stays),
 * `loom:block:last` (a writer's, later removed: the stage runs), and `loom:skip:last` from someone
 * who may label but not steer loom (triage): it must never count, not even when a writer's later
 * label change sends the whole label set along.
 */
describe("loom:skip and loom:block labels act as documented", { timeout: 200_000 }, () => {
  let e2e: E2E;
  let pull: PullRecord;
  let finalHead = "";
  let whileLabelled: { dispatched: string[]; extra?: CheckRunRecord; last?: CheckRunRecord } = {
    dispatched: [],
  };
  const stagesDispatched = () => dispatchesOf(e2e.emulator.requests).map((d) => d.stageId);
  before(async () => {
    e2e = await startE2E({
      permissions: { alice: "write", tina: "triage" },
      loomConfig: "workflow: loom.yml\nstage_labels: true\n",
      script: scriptStages({
        first: writeFiles({ "first.txt": "one\n" }),
        extra: writeFiles({ "extra.txt": "extra\n" }),
        tail: writeFiles({ "tail.txt": "tail\n" }),
        last: writeFiles({ "last.txt": "last\n" }),
      }),
    });
    pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
    await e2e.waitFor("the first stage to start", () => stagesDispatched().includes("first"));
    // People pick labels from GitHub's menu, which offers only labels the repository has: with
    // `stage_labels`, loom creates its labels when it first sees the plan.
    await e2e.waitFor("loom to create the plan's labels", () =>
      LOOM_LABELS.every((name) => findLabel(e2e.emulator.state, e2e.emulator.repo(), name)),
    );
    const alice = e2e.emulator.as("alice");
    await alice.addLabel(pull.number, "loom:skip:extra");
    await alice.addLabel(pull.number, "loom:block:last");
    await e2e.emulator.as("tina").addLabel(pull.number, "loom:skip:last");
    await e2e.waitFor(
      "first and tail to be merged",
      () =>
        ["first", "tail"].every((id) =>
          mergesOf(e2e.emulator.requests).some((m) => m.head.endsWith(`/${id}`) && m.status === 201),
        ),
      120_000,
    );
    const runs = await e2e.waitFor(
      "the check runs of the new head to show the skip and the block",
      async () => {
        const current = await e2e.checkRuns(pull);
        const extra = current.find((r) => r.name === "loom: extra");
        const last = current.find((r) => r.name === "loom: last");
        return extra?.status === "completed" && last?.status === "completed" ? { extra, last } : false;
      },
      30_000,
    );
    whileLabelled = { dispatched: stagesDispatched(), ...runs };
    // A writer's label change carries the whole label set, the reader's skip label included.
    await alice.removeLabel(pull.number, "loom:skip:extra");
    await alice.removeLabel(pull.number, "loom:block:last");
    await e2e
      .waitFor(
        "every check run of the final head to complete, the plan's successfully",
        async () => {
          const current = await e2e.checkRuns(pull);
          return (
            current.length === 5 &&
            current.every((r) => r.status === "completed") &&
            current.find((r) => r.name === PLAN_CHECK)?.conclusion === "success"
          );
        },
        120_000,
      )
      .catch((error: unknown) => error);
    finalHead = (await e2e.emulator.repo().git.readBranch(pull.headRef)) ?? "";
  });
  after(async () => {
    await e2e?.close();
  });

  it("never dispatches the skipped stage; its check run ends skipped and its dependent runs", async () => {
    assert.ok(!stagesDispatched().includes("extra"), e2e.describe());
    assert.equal(whileLabelled.extra?.conclusion, "skipped");
    const extra = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: extra");
    assert.equal(extra?.conclusion, "skipped", "removing the skip label does not bring the stage back");
    assert.equal(await e2e.readFile(pull.headRef, "extra.txt"), null);
    assert.equal(await e2e.readFile(pull.headRef, "tail.txt"), "tail\n");
  });

  it("does not dispatch the blocked stage while labelled, and its check run says why", () => {
    assert.deepEqual([...whileLabelled.dispatched].sort(), ["first", "tail"]);
    assert.equal(whileLabelled.last?.conclusion, "failure");
    assert.match(whileLabelled.last?.output.title ?? "", /blocked \(label\)/);
  });

  it("dispatches the blocked stage once the label is removed, ignores the reader's skip label, and ends green", async () => {
    assert.deepEqual(stagesDispatched().sort(), ["first", "last", "tail"], e2e.describe());
    const runs = await e2e.checkRuns(pull);
    assert.equal(runs.find((r) => r.name === PLAN_CHECK)?.conclusion, "success", e2e.describe());
    assert.equal(runs.find((r) => r.name === "loom: last")?.conclusion, "success");
    assert.equal(await e2e.readFile(pull.headRef, "last.txt"), "last\n");
  });

  it("leaves no loom check run spinning on an older commit: each ends neutral, pointing at the newer head", () => {
    const loomRuns = e2e.emulator.state.checkRuns.filter((r) => r.app === BOT && r.headSha !== finalHead);
    assert.ok(loomRuns.length > 0);
    const open = loomRuns.filter((r) => r.status !== "completed").map((r) => `${r.name}@${r.headSha}`);
    assert.deepEqual(open, []);
    const superseded = loomRuns.filter((r) => r.conclusion === "neutral");
    assert.ok(superseded.length > 0);
    for (const run of superseded)
      assert.match(run.output.title ?? "", /^Superseded: the head moved to [0-9a-f]{7}$/);
  });

  it("created the plan's labels with a description, once each", () => {
    const skip = findLabel(e2e.emulator.state, e2e.emulator.repo(), "loom:skip:extra");
    assert.equal(skip?.description, "loom: skip stage extra — its dependents treat it as done");
    const creates = e2e.emulator.requests.filter((r) => r.operationId === "issues/create-label");
    assert.equal(creates.length, LOOM_LABELS.length, "one request per label, none repeated by later pushes");
  });

  it("made only requests GitHub's OpenAPI description allows", () => {
    e2e.emulator.assertNoViolations();
  });
});
