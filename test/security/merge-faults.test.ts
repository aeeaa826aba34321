import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PullRecord } from "../e2e/e2e-requests.ts";
import { dispatchesOf, mergesOf } from "../e2e/e2e-requests.ts";
import { startE2E, type E2E } from "../e2e/harness.ts";
import { planText, scriptStages, writeFiles } from "../e2e/model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-chain.md";
const PLAN = planText(
  "Chain",
  `
- id: a
  name: First
  description: Write a.txt, the file the next stage reads
  acceptance: ["grep -q alpha a.txt"]
- id: b
  name: Second
  description: Write b.txt once a.txt is in
  dependencies: [a]
  acceptance: ["grep -q alpha a.txt", "grep -q beta b.txt"]
`,
);
const MERGE = "/repos/{owner}/{repo}/merges";
const DISPATCH = "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches";

/**
 * GitHub's transient faults on the two writes loom must never double or lose: a merge answered
 * 502 (not done), a merge done whose answer never arrived (connection dropped after), and the same
 * two on the first workflow dispatch. The real App, the real action and Claude Code, on the
 * emulator.
 */
describe("a 5xx or a lost answer on a merge or a dispatch is not a dead end", { timeout: 400_000 }, () => {
  let e2e: E2E;
  let pull: PullRecord;
  before(async () => {
    e2e = await startE2E({
      script: scriptStages({ a: writeFiles({ "a.txt": "alpha\n" }), b: writeFiles({ "b.txt": "beta\n" }) }),
    });
    // Oldest first: stage a's first merge gets a 502 (GitHub did nothing), its second is done but
    // the connection drops before the answer; the first dispatch gets a 502, the next one is done
    // and its answer lost.
    e2e.emulator.faults.route({ method: "POST", path: MERGE, type: "status", status: 502, times: 1 });
    e2e.emulator.faults.route({ method: "POST", path: MERGE, type: "disconnect", when: "after", times: 1 });
    e2e.emulator.faults.route({ method: "POST", path: DISPATCH, type: "status", status: 502, times: 1 });
    e2e.emulator.faults.route({
      method: "POST",
      path: DISPATCH,
      type: "disconnect",
      when: "after",
      times: 1,
    });
    pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
    await e2e.waitForPlanEnd(pull, "PLAN-chain", 2, 300_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${e2e.describe()}`);
    });
  });
  after(async () => {
    await e2e?.close();
  });

  it("fired every fault", () => {
    const fired = e2e.emulator.faults.fired.map((f) => (f.kind === "route" ? `${f.path} ${f.effect}` : ""));
    assert.equal(fired.length, 4, fired.join("\n"));
  });

  it("ends green with both stages' work on the pull request's branch", async () => {
    const runs = await e2e.checkRuns(pull);
    assert.deepEqual(
      runs.map((r) => [r.name, r.conclusion]).sort(),
      [
        ["loom: PLAN-chain", "success"],
        ["loom: a", "success"],
        ["loom: b", "success"],
      ],
      e2e.describe(),
    );
    assert.equal(await e2e.readFile(pull.headRef, "a.txt"), "alpha\n");
    assert.equal(await e2e.readFile(pull.headRef, "b.txt"), "beta\n");
  });

  it("merged each stage once: the lost answer was read from the repository, not merged again", async () => {
    const merges = mergesOf(e2e.emulator.requests);
    const a = merges.filter((m) => m.head.endsWith("/a"));
    // 502 (not done), then the one GitHub did (answer lost): nothing after it.
    assert.deepEqual(
      a.map((m) => m.status),
      [502, 201],
      JSON.stringify(merges),
    );
    const git = e2e.emulator.repo().git;
    const head = (await git.readBranch(pull.headRef)) ?? "";
    const mergeCommits: string[] = [];
    // Bounded: the branch holds a handful of commits.
    for (let sha: string | undefined = head, n = 0; sha && n < 50; n++) {
      const commit = await git.readCommit(sha);
      if (commit.parents.length === 2) mergeCommits.push(commit.message.split("\n")[0] ?? "");
      sha = commit.parents[0];
    }
    assert.deepEqual(mergeCommits.sort(), [
      "loom: merge stage a (First) of PLAN-chain",
      "loom: merge stage b (Second) of PLAN-chain",
    ]);
  });

  it("started b only after a was recorded as merged", () => {
    const requests = e2e.emulator.requests;
    const mergedA = mergesOf(requests).find((m) => m.head.endsWith("/a") && m.status === 201);
    const b = dispatchesOf(requests).find((d) => d.stageId === "b");
    assert.ok(mergedA && b && b.index > mergedA.index);
  });

  it("dispatched exactly one run per key despite the 502 and the lost answer", () => {
    const runs = e2e.emulator.state.runs;
    const keys = runs.map((run) => run.inputs["key"] ?? "");
    assert.equal(new Set(keys).size, keys.length, `one run per key: ${keys.join(", ")}`);
    assert.deepEqual(runs.map((run) => run.inputs["stage_id"]).sort(), ["a", "b"]);
  });

  it("made only requests GitHub's OpenAPI description allows", () => {
    e2e.emulator.assertNoViolations();
  });
});

/**
 * Someone pushes to a stage branch after its run's checks and publish, before loom merges it: the
 * push must not reach the pull request's branch unchecked. The push is made the moment loom's
 * first merge request arrives (that request then dies before GitHub acts), so it lands after the
 * checks for certain; loom merges only the SHA the checks ran on and, seeing the branch moved,
 * refuses and says why; `/loom retry` runs the stage again on the pushed branch.
 */
describe(
  "a push to a stage branch between its checks and its merge is not merged unchecked",
  { timeout: 400_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let pushed = "";
    before(async () => {
      e2e = await startE2E({
        // The second run of a (after `/loom retry a`) reviews the pushed branch and commits a note.
        script: scriptStages({
          a: writeFiles({ "a.txt": "alpha\n" }),
          "a:2": writeFiles({ "review.txt": "reviewed\n" }),
          b: writeFiles({ "b.txt": "beta\n" }),
        }),
      });
      e2e.emulator.faults.route({
        method: "POST",
        path: MERGE,
        type: "disconnect",
        when: "before",
        times: 1,
        onFire: async () => {
          pushed = await e2e.emulator
            .as("alice")
            .push("loom/pr-1/PLAN-chain/a", { "sneaky.txt": "unchecked\n" });
        },
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      await e2e.waitFor(
        "stage a to be refused its merge",
        async () => (await e2e.checkRuns(pull)).find((r) => r.name === "loom: a" && r.status === "completed"),
        180_000,
      );
    });
    after(async () => {
      await e2e?.close();
    });

    it("does not merge the push, and says why on the stage's check run", async () => {
      assert.ok(pushed, "the push was made");
      assert.equal(await e2e.readFile(pull.headRef, "sneaky.txt"), null);
      assert.equal(await e2e.readFile(pull.headRef, "a.txt"), null, "nothing of a was merged");
      const run = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: a");
      assert.notEqual(run?.conclusion, "success");
      assert.match(
        JSON.stringify(run?.output ?? {}),
        new RegExp(`moved to ${pushed.slice(0, 7)}`),
        e2e.describe(),
      );
      const merges = mergesOf(e2e.emulator.requests).filter((m) => m.status === 201 || m.status === 204);
      assert.deepEqual(merges, [], "no merge was done");
      assert.deepEqual(
        dispatchesOf(e2e.emulator.requests).map((d) => d.stageId),
        ["a"],
        "b did not start",
      );
    });

    it("merges by the checked SHA, never by the branch name", () => {
      const merges = mergesOf(e2e.emulator.requests);
      assert.ok(merges.length > 0);
      for (const merge of merges) assert.match(merge.sha ?? "", /^[0-9a-f]{40}$/);
    });

    it("`/loom retry a` runs the stage again on the pushed branch, checks it, then merges it", async () => {
      await e2e.emulator.as("alice").comment(pull.number, "/loom retry a");
      // The plan's check run is already completed (a failed); b's merge is the end.
      await e2e.waitFor(
        "stage b to be merged",
        async () => (await e2e.readFile(pull.headRef, "b.txt")) === "beta\n",
        200_000,
      );
      const stagesOfA = dispatchesOf(e2e.emulator.requests).filter((d) => d.stageId === "a");
      assert.equal(stagesOfA.length, 2, "a ran twice");
      const git = e2e.emulator.repo().git;
      assert.equal(
        await e2e.readFile(pull.headRef, "sneaky.txt"),
        "unchecked\n",
        `${JSON.stringify(mergesOf(e2e.emulator.requests))} a=${await git.readBranch("loom/pr-1/PLAN-chain/a")} pushed=${pushed}\n${e2e.describe()}`,
      );
      assert.equal(await e2e.readFile(pull.headRef, "b.txt"), "beta\n");
      e2e.emulator.assertNoViolations();
    });
  },
);
