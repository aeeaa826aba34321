import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import {
  delivery,
  issueCommentPayload,
  pullRequestPayload,
  pushSuitePayload,
  REPO,
} from "../support/webhook-payloads.ts";
import { startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

test("a webhook is only recorded, once per delivery id, before any work or API call", async () => {
  h = await startHarness();
  const opened = pullRequestPayload("opened", { number: 1, headSha: h.headSha });
  await h.probot.receive(delivery("pull_request", opened, "d-1"));
  await h.probot.receive(delivery("pull_request", opened, "d-1"));
  await h.probot.receive(
    delivery(
      "issue_comment",
      issueCommentPayload({ number: 1, body: "thanks!", sender: { login: "alice" } }),
      "d-2",
    ),
  );
  await h.probot.receive(delivery("check_suite", { action: "requested" }, "d-3"));
  // "Re-run all checks" / "Re-run failed checks": loom's failed stages run again.
  await h.probot.receive(delivery("check_suite", { action: "rerequested" }, "d-4"));
  // A push: kept only for the default branch, where the caller workflow lives.
  const push = (id: number, headBranch: string) =>
    pushSuitePayload({ id, headBranch, headSha: "1".repeat(40) });
  await h.probot.receive(delivery("check_suite", push(5, "feature/plan"), "d-5"));
  await h.probot.receive(delivery("check_suite", push(6, REPO.defaultBranch), "d-6"));
  assert.equal(h.gh.requests.length, 0, "nothing is read from GitHub while answering");
  const claimed = await h.store.claimDeliveries("inspector", 10, 60_000, Date.now());
  assert.deepEqual(
    claimed.map((d) => [d.id, d.name]),
    [
      ["d-1", "pull_request"],
      ["d-4", "check_suite"],
      ["d-6", "check_suite"],
    ],
    "the duplicate, a comment without a command, a push elsewhere and an event loom does not use are not stored",
  );
  await h.finish();
  h = undefined;
});

test("a webhook is recorded in its installation's queue: another installation's backlog does not delay it", async () => {
  h = await startHarness();
  const busy = pullRequestPayload("labeled", { number: 1, headSha: h.headSha, label: "x" });
  for (const id of ["a-1", "a-2", "a-3"]) await h.probot.receive(delivery("pull_request", busy, id));
  const other = { ...busy, installation: { id: 99 } };
  await h.probot.receive(delivery("pull_request", other, "b-1"));
  const claimed = await h.store.claimDeliveries("inspector", 2, 60_000, Date.now());
  assert.deepEqual(
    claimed.map((d) => d.id),
    ["a-1", "b-1"],
  );
  await h.finish();
  h = undefined;
});
