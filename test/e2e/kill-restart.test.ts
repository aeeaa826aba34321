import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { RouteFault } from "../emulator/create-faults.ts";
import { dispatchesOf, mergesOf, type PullRecord } from "./e2e-requests.ts";
import { BOT, startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-restart.md";
const PLAN = planText(
  "Restart",
  `
- id: first
  name: First
  description: Write first.txt
  acceptance: ["grep -q one first.txt"]
- id: second
  name: Second
  description: Write second.txt
  dependencies: [first]
  acceptance: ["grep -q one first.txt", "grep -q two second.txt"]
`,
);
const DISPATCH = "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches";
const MERGE = "/repos/{owner}/{repo}/merges";

/**
 * The real `node app/main.ts` on a SQLite file, SIGKILLed at three points of one plan and started
 * again each time with the same store and worker id. The kill points are driven from the
 * emulator's side (no hooks in the app): the app's request arrives, the app dies, and the request
 * is either never done or done without the app hearing back. Webhooks sent while it is down are
 * lost, as on GitHub: the restarted app must heal from the store and from reading GitHub.
 */
describe("the app killed at named points and restarted completes its plan", { timeout: 200_000 }, () => {
  let e2e: E2E;
  let pull: PullRecord;
  const kills: string[] = [];

  before(async () => {
    e2e = await startE2E({
      appProcess: true,
      script: scriptStages({
        first: writeFiles({ "first.txt": "one\n" }),
        second: writeFiles({ "second.txt": "two\n" }),
      }),
    });
    const app = e2e.appProcess!;
    const killAt = (point: string, path: string, when: "before" | "after"): RouteFault => ({
      method: "POST",
      path,
      type: "disconnect",
      when,
      onFire: async () => {
        kills.push(point);
        await app.kill();
      },
    });
    const killed = (count: number) =>
      e2e.waitFor(`kill ${count} (${kills.join(", ")})`, () => kills.length === count && !app.running);

    // After deciding: the dispatch is committed in the store; GitHub never receives it.
    e2e.emulator.faults.route(killAt("after deciding", DISPATCH, "before"));
    // After merging: GitHub merged the first stage into the pull request's branch; the app never heard.
    e2e.emulator.faults.route(killAt("after merging", MERGE, "after"));
    pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
    await killed(1);
    await app.start();
    await killed(2);
    // After dispatching: GitHub created the second stage's run; the app never learned its id.
    e2e.emulator.faults.route(killAt("after dispatching", DISPATCH, "after"));
    await app.start();
    await killed(3);
    await app.start();
    await e2e.waitForPlanEnd(pull, "PLAN-restart", 2, 120_000);
  });
  after(async () => {
    await e2e?.close();
  });

  it("was killed at each named point and restarted each time", () => {
    assert.deepEqual(kills, ["after deciding", "after merging", "after dispatching"]);
    assert.equal(e2e.appProcess?.incarnations, 4);
  });

  it("ends green with every stage's work on the pull request's branch", async () => {
    assert.deepEqual(
      (await e2e.checkRuns(pull)).map((r) => [r.name, r.conclusion]),
      [
        ["loom: first", "success"],
        ["loom: PLAN-restart", "success"],
        ["loom: second", "success"],
      ],
      e2e.describe(),
    );
    assert.equal(await e2e.readFile(pull.headRef, "first.txt"), "one\n");
    assert.equal(await e2e.readFile(pull.headRef, "second.txt"), "two\n");
  });

  it("started exactly one workflow run per dispatch key: none doubled, none lost", () => {
    const keys = e2e.emulator.state.runs.map((run) => run.inputs["key"] ?? "");
    assert.equal(keys.length, 2, `runs: ${keys.join(", ")}`);
    assert.equal(new Set(keys).size, 2, `runs: ${keys.join(", ")}`);
    assert.deepEqual(
      dispatchesOf(e2e.emulator.requests).map((d) => [d.stageId, d.key]),
      e2e.emulator.state.runs.map((run) => [run.inputs["stage_id"], run.inputs["key"]]),
    );
  });

  it("merged each stage into the pull request's branch once", () => {
    const merged = mergesOf(e2e.emulator.requests).filter((m) => m.status === 201);
    assert.deepEqual(
      merged.map((m) => m.head),
      ["loom/pr-1/PLAN-restart/first", "loom/pr-1/PLAN-restart/second"],
    );
  });

  it("took back at restart the work its killed predecessor had leased", () => {
    const restarted = (e2e.appProcess?.logs ?? []).filter(
      (line) =>
        Number(line["incarnation"]) > 1 &&
        String(line["msg"]).startsWith("took back work leased to this worker"),
    );
    assert.ok(restarted.length > 0, e2e.describe());
  });

  it("keeps one status comment showing the whole plan merged", () => {
    const comments = e2e.emulator.state.comments.filter(
      (c) => c.issueNumber === pull.number && c.user === BOT && c.body.includes("<!-- loom:status:"),
    );
    assert.equal(comments.length, 1);
    assert.match(comments[0]!.body, /\*\*2\/2 merged\*\*/);
  });

  it("made only requests GitHub's OpenAPI description allows", () => {
    e2e.emulator.assertNoViolations();
    assert.deepEqual(e2e.emulator.runnerErrors, []);
  });
});
