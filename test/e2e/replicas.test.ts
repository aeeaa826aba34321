import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { findPostgresSkipReason, postgresRequired, testDatabaseUrl } from "../store/test-database.ts";
import { dispatchesOf, mergesOf, type PullRecord } from "./e2e-requests.ts";
import { BOT, startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-replicas.md";
const PLAN = planText(
  "Replicas",
  `
- id: a
  name: Foundation
  description: Write a.txt
  acceptance: ["grep -q alpha a.txt"]
- id: b
  name: Left
  description: Write b.txt
  dependencies: [a]
  acceptance: ["grep -q beta b.txt"]
- id: c
  name: Right
  description: Write c.txt
  dependencies: [a]
  acceptance: ["grep -q gamma c.txt"]
- id: d
  name: Join
  description: Write d.txt
  dependencies: [b, c]
  acceptance: ["cat a.txt b.txt c.txt d.txt"]
`,
);

const skipReason = await findPostgresSkipReason();
if (skipReason !== undefined && postgresRequired) throw new Error(`LOOM_REQUIRE_POSTGRES=1: ${skipReason}`);

/**
 * Two instances of the real app on one PostgreSQL schema (each its own pool and worker id), behind
 * a load balancer: webhooks alternate between them and every third also reaches the other one with
 * the same delivery id. Both poll, reconcile and claim from the same outbox at once.
 */
describe(
  "two app instances on one PostgreSQL run a diamond plan",
  { timeout: 240_000, skip: skipReason === undefined ? false : `PostgreSQL unreachable (${skipReason})` },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    before(async () => {
      e2e = await startE2E({
        databaseUrl: testDatabaseUrl,
        replicas: 2,
        duplicateDeliveryEvery: 3,
        script: scriptStages({
          a: writeFiles({ "a.txt": "alpha\n" }),
          b: writeFiles({ "b.txt": "beta\n" }),
          c: writeFiles({ "c.txt": "gamma\n" }),
          d: writeFiles({ "d.txt": "delta\n" }),
        }),
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      await e2e.waitForPlanEnd(pull, "PLAN-replicas", 4, 200_000);
    });
    after(async () => {
      await e2e?.close();
    });

    it("ends green with every stage's work on the pull request's branch", async () => {
      assert.deepEqual(
        (await e2e.checkRuns(pull)).map((r) => [r.name, r.conclusion]),
        [
          ["loom: a", "success"],
          ["loom: b", "success"],
          ["loom: c", "success"],
          ["loom: d", "success"],
          ["loom: PLAN-replicas", "success"],
        ],
        e2e.describe(),
      );
      const files = await Promise.all(
        ["a.txt", "b.txt", "c.txt", "d.txt"].map((f) => e2e.readFile(pull.headRef, f)),
      );
      assert.deepEqual(files, ["alpha\n", "beta\n", "gamma\n", "delta\n"]);
    });

    it("dispatched exactly once per key and started one workflow run per key", () => {
      const dispatches = dispatchesOf(e2e.emulator.requests);
      assert.deepEqual(dispatches.map((d) => d.stageId).sort(), ["a", "b", "c", "d"]);
      assert.equal(new Set(dispatches.map((d) => d.key)).size, 4);
      assert.deepEqual(
        e2e.emulator.state.runs.map((run) => run.inputs["key"]).sort(),
        dispatches.map((d) => d.key).sort(),
      );
    });

    it("merged each stage into the pull request's branch once", () => {
      const merged = mergesOf(e2e.emulator.requests).filter((m) => m.status === 201);
      assert.deepEqual(merged.map((m) => m.head).sort(), [
        "loom/pr-1/PLAN-replicas/a",
        "loom/pr-1/PLAN-replicas/b",
        "loom/pr-1/PLAN-replicas/c",
        "loom/pr-1/PLAN-replicas/d",
      ]);
    });

    it("fed both instances, and ignored the copies of a delivery the other had recorded", () => {
      const urls = new Set(e2e.emulator.deliveries.flatMap((d) => d.attempts.map((a) => a.url)));
      assert.deepEqual([...urls].sort(), e2e.apps.map((app) => app.webhookUrl).sort());
      const copies = e2e.emulator.deliveries.filter((d) => d.attempts.length === 2);
      assert.ok(copies.length > 0, "some deliveries reached both instances");
      const ignored = e2e.apps
        .flatMap((app) => app.logs)
        .filter((line) => line["msg"] === "duplicate delivery ignored");
      assert.ok(ignored.length > 0, "an instance recognised a delivery the other had recorded");
    });

    it("keeps one status comment showing the whole plan merged", () => {
      const comments = e2e.emulator.state.comments.filter(
        (c) => c.issueNumber === pull.number && c.user === BOT && c.body.includes("<!-- loom:status:"),
      );
      assert.equal(comments.length, 1);
      assert.match(comments[0]!.body, /\*\*4\/4 merged\*\*/);
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
      assert.deepEqual(e2e.emulator.runnerErrors, []);
    });
  },
);
