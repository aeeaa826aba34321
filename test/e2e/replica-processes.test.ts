import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { findPostgresSkipReason, postgresRequired, testDatabaseUrl } from "../store/test-database.ts";
import { dispatchesOf, mergesOf, type PullRecord } from "./e2e-requests.ts";
import { BOT, OWNER, REPO, startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-processes.md";
// Two roots the two processes dispatch side by side, then a join: two levels, one of them parallel.
const PLAN = planText(
  "Processes",
  `
- id: a
  name: Left
  description: Write a.txt
  acceptance: ["grep -q alpha a.txt"]
- id: b
  name: Right
  description: Write b.txt
  acceptance: ["grep -q beta b.txt"]
- id: c
  name: Join
  description: Write c.txt
  dependencies: [a, b]
  acceptance: ["cat a.txt b.txt c.txt"]
`,
);

const skipReason = await findPostgresSkipReason();
if (skipReason !== undefined && (postgresRequired || process.env["CI"]))
  throw new Error(`PostgreSQL is required here (LOOM_REQUIRE_POSTGRES or CI is set): ${skipReason}`);

/**
 * Two real App processes (`node app/main.ts`, each with its own LOOM_WORKER_ID) on one PostgreSQL
 * (DATABASE_URL), as two replicas would run: webhooks alternate between them and every third also
 * reaches the other one with the same delivery id. Both poll, reconcile and claim from one outbox.
 */
describe(
  "two App processes on one PostgreSQL run a plan with parallel stages",
  { timeout: 360_000, skip: skipReason === undefined ? false : `PostgreSQL unreachable (${skipReason})` },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    before(async () => {
      e2e = await startE2E({
        appProcess: true,
        databaseUrl: testDatabaseUrl,
        replicas: 2,
        duplicateDeliveryEvery: 3,
        script: scriptStages({
          a: writeFiles({ "a.txt": "alpha\n" }),
          b: writeFiles({ "b.txt": "beta\n" }),
          c: writeFiles({ "c.txt": "gamma\n" }),
        }),
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      await e2e.waitForPlanEnd(pull, "PLAN-processes", 3, 300_000);
    });
    after(async () => {
      await e2e?.close();
    });

    it("ran two processes on PostgreSQL with their own worker ids", () => {
      assert.equal(e2e.appProcesses.length, 2);
      assert.equal(e2e.store.kind, "postgres");
      const urls = new Set(e2e.appProcesses.map((p) => p.webhookUrl));
      assert.equal(urls.size, 2);
    });

    it("ends green with every stage's work on the pull request's branch", async () => {
      assert.deepEqual(
        (await e2e.checkRuns(pull)).map((r) => [r.name, r.conclusion]),
        [
          ["loom: a", "success"],
          ["loom: b", "success"],
          ["loom: c", "success"],
          ["loom: PLAN-processes", "success"],
        ],
        e2e.describe(),
      );
      const files = await Promise.all(["a.txt", "b.txt", "c.txt"].map((f) => e2e.readFile(pull.headRef, f)));
      assert.deepEqual(files, ["alpha\n", "beta\n", "gamma\n"]);
    });

    it("dispatched exactly once per stage key and started one workflow run per key", () => {
      // A session crashed by a loaded machine is retried under a new key (the attempt is part of
      // it): what must hold is that no key is dispatched twice, whichever process carried it out.
      const dispatches = dispatchesOf(e2e.emulator.requests);
      assert.deepEqual([...new Set(dispatches.map((d) => d.stageId))].sort(), ["a", "b", "c"]);
      assert.equal(new Set(dispatches.map((d) => d.key)).size, dispatches.length, "no key twice");
      assert.deepEqual(
        e2e.emulator.state.runs.map((run) => run.inputs["key"]).sort(),
        dispatches.map((d) => d.key).sort(),
      );
    });

    it("merged each stage into the pull request's branch once", () => {
      const merged = mergesOf(e2e.emulator.requests).filter((m) => m.status === 201);
      assert.deepEqual(merged.map((m) => m.head).sort(), [
        "loom/pr-1/PLAN-processes/a",
        "loom/pr-1/PLAN-processes/b",
        "loom/pr-1/PLAN-processes/c",
      ]);
    });

    it("fed both processes, and each ignored copies of deliveries the other had recorded", () => {
      const urls = new Set(e2e.emulator.deliveries.flatMap((d) => d.attempts.map((a) => a.url)));
      assert.deepEqual([...urls].sort(), e2e.appProcesses.map((p) => p.webhookUrl).sort());
      assert.ok(
        e2e.emulator.deliveries.some((d) => d.attempts.length === 2),
        "some reached both",
      );
      const ignored = e2e.appProcesses
        .flatMap((p) => p.logs)
        .filter((line) => line["msg"] === "duplicate delivery ignored");
      assert.ok(ignored.length > 0, "a process recognised a delivery the other had recorded");
    });

    it("keeps one status comment showing the whole plan merged", () => {
      const comments = e2e.emulator.state.comments.filter(
        (c) => c.issueNumber === pull.number && c.user === BOT && c.body.includes("<!-- loom:status:"),
      );
      assert.equal(comments.length, 1);
      assert.match(comments[0]!.body, /\*\*3\/3 merged\*\*/);
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
      assert.deepEqual(e2e.emulator.runnerErrors, []);
    });

    it("kept the plan's state in the shared database the test reads", async () => {
      const plans = await e2e.store.listPlansForPull(OWNER, REPO, pull.number);
      assert.deepEqual(
        plans.map((p) => p.key.planPath),
        [PLAN_PATH],
      );
    });

    it("both processes drain and exit 0 on SIGTERM", async () => {
      for (const child of e2e.appProcesses) {
        assert.deepEqual(await child.stop("SIGTERM"), { code: 0, signal: null });
        assert.ok(child.logs.some((line) => line["msg"] === "loom stopped"));
      }
    });
  },
);
