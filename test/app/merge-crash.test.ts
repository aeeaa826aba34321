import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { Store } from "../../app/store/store.ts";
import { readStoredPlan } from "../../app/engine/stored-plan.ts";
import type { StageState } from "../../src/orchestrator/state.ts";
import { pullRequestPayload, workflowRunPayload } from "../support/webhook-payloads.ts";
import { openTempStore, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";
import { passingResult } from "./stage-results.ts";

let h: Harness | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const close of closers.splice(0)) await close();
});

class ProcessDied extends Error {}

/**
 * A store whose process "dies" once armed: the first commit that would record stage `a` as merged
 * never happens, and neither does anything after it (no failure is recorded: the effect stays
 * leased to the dead worker, as after a kill -9 right after GitHub merged).
 */
async function openCrashingStore(): Promise<Store & { arm(): void }> {
  const { store: inner, close } = await openTempStore();
  closers.push(close);
  let armed = false;
  let dead = false;
  return Object.assign(Object.create(null) as object, inner, {
    arm: () => (armed = true),
    commitPlan: (...args: Parameters<Store["commitPlan"]>) => {
      // The commit writes a's record as a part of its own when it changed.
      const a = args[1].setParts?.["stage:a"];
      if (armed && a !== undefined && (JSON.parse(a) as StageState).merged) {
        armed = false;
        dead = true;
        return Promise.reject(new ProcessDied("killed after the merge, before its commit"));
      }
      return inner.commitPlan(...args);
    },
    failEffect: (...args: Parameters<Store["failEffect"]>) =>
      dead ? Promise.reject(new ProcessDied("dead")) : inner.failEffect(...args),
  });
}

test("a crash between GitHub's merge and its record leaves the stage completed but not merged: dependents wait until the merge is confirmed", async () => {
  let time = Date.UTC(2026, 10, 22, 0, 0, 0);
  const store = await openCrashingStore();
  h = await startHarness({ store, clock: () => time });
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const [dispatch] = h.fake.dispatches;
  assert.ok(dispatch);
  h.fake.finishRun(dispatch.runId, "success", passingResult("a"));
  // GitHub merges the first time; asked again, it has nothing left to merge.
  h.fake.mergeAnswers.set("loom/pr-1/PLAN-diamond/a", [201, 204]);
  store.arm();
  await assert.rejects(
    h.receive(
      "workflow_run",
      workflowRunPayload("completed", { id: dispatch.runId, displayTitle: `loom ${dispatch.inputs["key"]}` }),
    ),
    ProcessDied,
  );
  assert.equal(h.fake.merges.length, 1, "GitHub merged");

  const [plan] = await store.listPlansForPull("acme", "widgets", 1);
  assert.ok(plan);
  const a = readStoredPlan(plan).state.stages["a"];
  assert.deepEqual([a?.status, a?.merged], ["completed", false], "completed, not merged");
  const checkA = h.fake.checkRuns.findLast((r) => r["name"] === "loom: a");
  assert.notEqual(checkA?.["conclusion"], "success", "a's check run does not show it done");
  assert.deepEqual(
    h.fake.dispatches.map((d) => d.inputs["stage_id"]),
    ["a"],
    "b and c wait",
  );

  // Another replica (or the restarted App) takes the merge up once the dead worker's lease ends.
  time += 120_000;
  const replica = await h.addInstance(store, "replica-b");
  await replica.engine.drain();
  assert.deepEqual(
    h.fake.merges.map((m) => m.status),
    [201, 204],
  );
  assert.deepEqual(h.fake.dispatches.map((d) => d.inputs["stage_id"]).sort(), ["a", "b", "c"]);
  assert.equal(h.fake.checkRuns.findLast((r) => r["name"] === "loom: a")?.["conclusion"], "success");
  await h.finish();
  h = undefined;
});
