import assert from "node:assert/strict";
import { test } from "node:test";
import { openStore } from "../../app/store/open-store.ts";
import { delivery, pullRequestPayload } from "../support/webhook-payloads.ts";
import { startHarness } from "./loom-harness.ts";
import {
  createPostgresTestDatabase,
  findPostgresSkipReason,
  postgresRequired,
} from "../store/test-database.ts";

const skipReason = await findPostgresSkipReason();
if (skipReason !== undefined && postgresRequired) throw new Error(`LOOM_REQUIRE_POSTGRES=1: ${skipReason}`);

test(
  "two app replicas sharing one PostgreSQL never dispatch the same key twice",
  { skip: skipReason === undefined ? false : `PostgreSQL unreachable (${skipReason})` },
  async (t) => {
    const database = await createPostgresTestDatabase();
    const storeA = await openStore(database.options);
    const storeB = await openStore(database.options);
    const h = await startHarness({ store: storeA, workerId: "replica-a" });
    t.after(async () => {
      await h.cleanup();
      await storeA.close();
      await storeB.close();
      await database.drop();
    });
    const b = await h.addInstance(storeB, "replica-b");
    const opened = pullRequestPayload("opened", { number: 1, headSha: h.headSha });
    // GitHub delivers the same event to both replicas (behind a load balancer: a retry, a
    // redelivery), and a second copy arrives with another id; both replicas work at once.
    await Promise.all([
      h.probot.receive(delivery("pull_request", opened, "same-id")),
      b.probot.receive(delivery("pull_request", opened, "same-id")),
      b.probot.receive(delivery("pull_request", opened, "other-id")),
    ]);
    await Promise.all([h.engine.drain(), b.engine.drain(), h.engine.drain(), b.engine.drain()]);
    assert.deepEqual(
      h.fake.dispatches.map((d) => d.inputs["key"]),
      [h.fake.dispatches[0]?.inputs["key"]],
      "one dispatch of stage a",
    );
    assert.equal(
      h.gh.find("POST", "/repos/acme/widgets/git/refs").length,
      0,
      "no stage branch written by either replica (the run's publish job creates it)",
    );
    assert.equal(h.fake.comments.length, 1, "one status comment");
    await h.finish();
  },
);
