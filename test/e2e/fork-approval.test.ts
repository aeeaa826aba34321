import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { dispatchesOf, type PullRecord } from "./e2e-requests.ts";
import { startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-outside.md";
const PLAN = planText(
  "Outside",
  `
- id: only
  name: Only stage
  description: Write only.txt
  acceptance: ["grep -q only only.txt"]
`,
);

describe("a plan from a fork waits for a writer's /loom approve", { timeout: 200_000 }, () => {
  let e2e: E2E;
  let pull: PullRecord;
  before(async () => {
    e2e = await startE2E({
      script: scriptStages({ only: writeFiles({ "only.txt": "only\n" }) }),
      permissions: { alice: "write", mallory: "read" },
    });
    pull = await e2e.openPlan({
      login: "mallory",
      head: "mallory-plan",
      headRepo: "mallory/widgets",
      files: { [PLAN_PATH]: PLAN },
    });
    await e2e.waitFor("loom to hold the plan", () =>
      e2e.app.logs.some((line) => line["msg"] === "plan waits for /loom approve"),
    );
    // Give the app time to (wrongly) dispatch before checking it did not.
    await sleep(3_000);
  });
  after(async () => {
    await e2e?.close();
  });

  it("starts nothing before approval", () => {
    assert.deepEqual(dispatchesOf(e2e.emulator.requests), []);
  });

  it("starts the stage once a writer approves", async () => {
    await e2e.emulator.as("alice").comment(pull.number, "/loom approve");
    const dispatch = await e2e.waitFor(
      "the stage to be dispatched",
      () => dispatchesOf(e2e.emulator.requests)[0],
      60_000,
    );
    assert.equal(dispatch.stageId, "only");
    assert.equal(dispatch.kind, "stage");
  });

  it("made only requests GitHub's OpenAPI description allows", () => {
    e2e.emulator.assertNoViolations();
  });
});
