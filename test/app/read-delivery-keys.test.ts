import assert from "node:assert/strict";
import { test } from "node:test";
import { readDeliveryKeys } from "../../app/engine/read-delivery-keys.ts";
import { checkSuitePayload, pullRequestPayload, pushSuitePayload } from "../support/webhook-payloads.ts";

/* What the inbox keeps beside a delivery on receipt: its installation and its coalescing key. */

test("pushes, openings and reopenings of one pull request share a coalescing key, whatever the repository name's case; nothing else has one", () => {
  const keys = (action: "opened" | "reopened" | "synchronize" | "closed" | "labeled", number: number) =>
    readDeliveryKeys("pull_request", pullRequestPayload(action, { number, headSha: "a".repeat(40) }));
  const pushed = keys("synchronize", 1);
  assert.deepEqual(pushed, { installationId: 4242, coalesceKey: "pull_request:reload:acme/widgets#1" });
  assert.equal(keys("opened", 1).coalesceKey, pushed.coalesceKey);
  assert.equal(keys("reopened", 1).coalesceKey, pushed.coalesceKey);
  assert.notEqual(keys("synchronize", 2).coalesceKey, pushed.coalesceKey);
  assert.equal(keys("closed", 1).coalesceKey, null);
  assert.equal(keys("labeled", 1).coalesceKey, null);
  const upper = pullRequestPayload("synchronize", { number: 1, headSha: "a".repeat(40) });
  (upper["repository"] as { full_name: string }).full_name = "ACME/Widgets";
  assert.equal(readDeliveryKeys("pull_request", upper).coalesceKey, pushed.coalesceKey);
  assert.deepEqual(readDeliveryKeys("issue_comment", upper), { installationId: 4242, coalesceKey: null });
  const uninstalled = { ...upper };
  delete uninstalled["installation"];
  assert.deepEqual(readDeliveryKeys("pull_request", uninstalled).installationId, null);
});

test("pushes to one repository's default branch share a coalescing key: each reads the caller workflow as it is then", () => {
  const push = (id: number) =>
    readDeliveryKeys("check_suite", pushSuitePayload({ id, headBranch: "main", headSha: "1".repeat(40) }));
  assert.deepEqual(push(1), { installationId: 4242, coalesceKey: "check_suite:caller:acme/widgets" });
  assert.equal(push(2).coalesceKey, push(1).coalesceKey);
  const rerun = checkSuitePayload({
    id: 3,
    headSha: "1".repeat(40),
    pullNumbers: [1],
    sender: { login: "alice" },
  });
  assert.equal(readDeliveryKeys("check_suite", rerun).coalesceKey, null, "each re-run is a person's command");
});
