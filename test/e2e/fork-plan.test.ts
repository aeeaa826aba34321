import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { dispatchesOf, mergesOf, type PullRecord } from "./e2e-requests.ts";
import { startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-forked.md";
const PLAN = planText(
  "Forked",
  `
- id: a
  name: First
  description: Write a.txt
  acceptance: ["grep -q alpha a.txt"]
- id: b
  name: Second
  description: Write b.txt next to a.txt
  dependencies: [a]
  acceptance: ["grep -q alpha a.txt", "grep -q beta b.txt"]
`,
);
const TARGET = "loom/pr-1/result/PLAN-forked";

/**
 * Issue 11, hole 1: mallory's fork has a branch named `main`, like the base repository's default
 * branch. loom must never branch from, merge into or push to the base repository's `main` for it,
 * and cannot write to the fork: the stages merge into loom's own result branch in the base
 * repository, started from the approved head (GitHub's `refs/pull/<n>/head`).
 */
describe(
  "a plan from a fork whose branch is named main stays out of the base repository's main",
  { timeout: 240_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let baseMain: string;
    let forkBranches: Map<string, string>;
    before(async () => {
      e2e = await startE2E({
        script: scriptStages({ a: writeFiles({ "a.txt": "alpha\n" }), b: writeFiles({ "b.txt": "beta\n" }) }),
        permissions: { alice: "write", mallory: "read" },
      });
      baseMain = (await e2e.emulator.repo().git.readBranch("main"))!;
      pull = await e2e.openPlan({
        login: "mallory",
        head: "main",
        headRepo: "mallory/widgets",
        files: { [PLAN_PATH]: PLAN },
      });
      forkBranches = await e2e.emulator.repo("mallory/widgets").git.listBranches();
      await e2e.waitFor("loom to hold the plan", () =>
        e2e.app.logs.some((line) => line["msg"] === "plan waits for /loom approve"),
      );
      // Approved by SHA: a bare `/loom approve` written in the second the fork was pushed counts as
      // written before the push (GitHub's times are to the second) and approves nothing.
      await e2e.emulator.as("alice").comment(pull.number, `/loom approve ${pull.headSha}`);
      await e2e.waitForPlanEnd(pull, "PLAN-forked", 2, 200_000);
    });
    after(async () => {
      await e2e?.close();
    });

    it("never moves the base repository's main", async () => {
      assert.equal(await e2e.emulator.repo().git.readBranch("main"), baseMain);
      assert.equal(await e2e.readFile("main", PLAN_PATH), null);
      for (const merge of mergesOf(e2e.emulator.requests)) assert.equal(merge.base, TARGET);
    });

    it("merges every stage into loom/pr-<n>/result/<plan-id>, which starts at the approved head", async () => {
      const repo = e2e.emulator.repo();
      const target = await repo.git.readBranch(TARGET);
      assert.ok(target, `${TARGET} exists`);
      assert.ok(await repo.git.isAncestor(pull.headSha, target));
      assert.equal(await e2e.readFile(TARGET, "a.txt"), "alpha\n");
      assert.equal(await e2e.readFile(TARGET, "b.txt"), "beta\n");
      assert.equal(await e2e.readFile(TARGET, PLAN_PATH), PLAN);
      assert.deepEqual(
        mergesOf(e2e.emulator.requests)
          .filter((m) => m.status === 201)
          .map((m) => m.head),
        ["loom/pr-1/PLAN-forked/a", "loom/pr-1/PLAN-forked/b"],
      );
    });

    it("starts the dependent stage from the result branch, with its dependency's work", async () => {
      assert.deepEqual(
        dispatchesOf(e2e.emulator.requests).map((d) => d.stageId),
        ["a", "b"],
      );
      const request = e2e.emulator.requests.find(
        (r) =>
          r.operationId === "actions/create-workflow-dispatch" &&
          JSON.stringify(r.body).includes('"stage_id":"b"'),
      );
      assert.equal((request?.body as { inputs: Record<string, string> }).inputs["base"], TARGET);
      // b's checked commit (what loom merged; its branch is deleted once the plan is done) holds a.txt.
      const mergeB = mergesOf(e2e.emulator.requests).find(
        (m) => m.head === "loom/pr-1/PLAN-forked/b" && m.status === 201,
      );
      assert.ok(mergeB?.sha);
      assert.equal((await e2e.emulator.repo().git.readBlob(mergeB.sha, "a.txt"))?.toString(), "alpha\n");
    });

    it("leaves the fork as mallory left it", async () => {
      assert.deepEqual(await e2e.emulator.repo("mallory/widgets").git.listBranches(), forkBranches);
    });

    it("tells the fork's author where the result is", () => {
      assert.match(e2e.statusComment(pull)?.body ?? "", new RegExp(TARGET));
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
    });
  },
);
