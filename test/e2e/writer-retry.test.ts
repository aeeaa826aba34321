import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dispatchesOf, type PullRecord } from "./e2e-requests.ts";
import { startE2E, type E2E } from "./harness.ts";
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

describe("/loom retry from a writer re-runs a stage whose acceptance failed", { timeout: 200_000 }, () => {
  let e2e: E2E;
  let pull: PullRecord;
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

  it("ends green with the retried work on the pull request's branch", async () => {
    const plan = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: PLAN-again");
    assert.equal(plan?.conclusion, "success", e2e.describe());
    assert.equal(await e2e.readFile(pull.headRef, "greet.txt"), "hello\n");
  });

  it("made only requests GitHub's OpenAPI description allows", () => {
    e2e.emulator.assertNoViolations();
  });
});
