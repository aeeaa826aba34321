import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { findLabel } from "../emulator/repo-labels.ts";
import { dispatchesOf, mergesOf, type PullRecord } from "./e2e-requests.ts";
import { startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-paused.md";
const PLAN = planText(
  "Paused",
  `
- id: first
  name: First
  description: Write first.txt
  acceptance: ["grep -q one first.txt"]
- id: second
  name: Second
  description: Write second.txt
  dependencies: [first]
  acceptance: ["grep -q two second.txt"]
`,
);

describe("the loom:hold label stops new dispatches until it is removed", { timeout: 200_000 }, () => {
  let e2e: E2E;
  let pull: PullRecord;
  let dispatchedWhileHeld: string[] = [];
  before(async () => {
    e2e = await startE2E({
      script: scriptStages({
        first: writeFiles({ "first.txt": "one\n" }),
        second: writeFiles({ "second.txt": "two\n" }),
      }),
    });
    pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
    await e2e.waitFor("the first stage to start", () => dispatchesOf(e2e.emulator.requests).length === 1);
    // GitHub's label menu offers only existing labels: loom created loom:hold for the plan.
    await e2e.waitFor("loom to create loom:hold", () =>
      findLabel(e2e.emulator.state, e2e.emulator.repo(), "loom:hold"),
    );
    await e2e.emulator.as("alice").addLabel(pull.number, "loom:hold");
    await e2e.waitFor(
      "the first stage to be merged",
      () => mergesOf(e2e.emulator.requests).some((m) => m.head.endsWith("/first") && m.status === 201),
      90_000,
    );
    await sleep(3_000);
    dispatchedWhileHeld = dispatchesOf(e2e.emulator.requests).map((d) => d.stageId);
    await e2e.emulator.as("alice").removeLabel(pull.number, "loom:hold");
    await e2e
      .waitFor(
        "the plan's check run to succeed",
        async () =>
          (await e2e.checkRuns(pull)).find(
            (r) => r.name === "loom: PLAN-paused" && r.conclusion === "success",
          ),
        90_000,
      )
      .catch((error: unknown) => error);
  });
  after(async () => {
    await e2e?.close();
  });

  it("lets the running stage finish and merge, but starts no dependent while held", () => {
    assert.deepEqual(dispatchedWhileHeld, ["first"]);
  });

  it("starts the dependent once the label is removed, and the plan ends green", async () => {
    const dispatches = dispatchesOf(e2e.emulator.requests);
    assert.deepEqual(
      dispatches.map((d) => d.stageId),
      ["first", "second"],
      `dispatches: ${JSON.stringify(dispatches)}\n${e2e.describe()}`,
    );
    const plan = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: PLAN-paused");
    assert.equal(plan?.conclusion, "success", e2e.describe());
    assert.equal(await e2e.readFile(pull.headRef, "second.txt"), "two\n");
  });

  it("made only requests GitHub's OpenAPI description allows", () => {
    e2e.emulator.assertNoViolations();
  });
});
