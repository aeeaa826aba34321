import assert from "node:assert/strict";
import { test } from "node:test";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import { isSuperseded } from "../../app/engine/is-superseded.ts";
import type { InboxDelivery } from "../../app/store/store.ts";
import { issueCommentPayload, pullRequestPayload } from "../support/webhook-payloads.ts";

/*
 * Which deliveries a newer one makes pointless: a pull request's reloads (opened, reopened,
 * synchronize) by anyone but loom's own bot. The store answers "a newer one with the same key
 * exists" (its side is in the store contract); here it always says yes, and counts the questions.
 */

function depsWithNewer(): { deps: EngineDeps; asked: string[] } {
  const asked: string[] = [];
  const deps = {
    getBotLogin: () => Promise.resolve("loom[bot]"),
    store: {
      hasNewerDelivery: (id: string) => {
        asked.push(id);
        return Promise.resolve(true);
      },
    },
  } as unknown as EngineDeps;
  return { deps, asked };
}

const delivery = (name: string, payload: Record<string, unknown>): InboxDelivery => ({
  id: `${name}-1`,
  name,
  payload,
  receivedAt: 0,
  attempts: 1,
  leaseUntil: 0,
  lastError: null,
});

test("a person's push with a newer reload of the same pull request waiting is superseded", async () => {
  const { deps, asked } = depsWithNewer();
  const push = pullRequestPayload("synchronize", {
    number: 1,
    headSha: "a".repeat(40),
    sender: { login: "alice" },
  });
  assert.equal(await isSuperseded(deps, delivery("pull_request", push)), true);
  assert.deepEqual(asked, ["pull_request-1"]);
});

test("a push sent by loom's own bot is never superseded: loom's merges are judged one by one", async () => {
  const { deps, asked } = depsWithNewer();
  const push = pullRequestPayload("synchronize", {
    number: 1,
    headSha: "a".repeat(40),
    sender: { login: "loom[bot]", type: "Bot" },
  });
  assert.equal(await isSuperseded(deps, delivery("pull_request", push)), false);
  assert.deepEqual(asked, []);
});

test("deliveries that are not reloads (a comment, a label) are never superseded, and cost no store question", async () => {
  const { deps, asked } = depsWithNewer();
  const comment = issueCommentPayload({ number: 1, body: "/loom retry a", sender: { login: "alice" } });
  assert.equal(await isSuperseded(deps, delivery("issue_comment", comment)), false);
  const label = pullRequestPayload("labeled", { number: 1, headSha: "a".repeat(40), label: "loom:hold" });
  assert.equal(await isSuperseded(deps, delivery("pull_request", label)), false);
  assert.deepEqual(asked, []);
});
