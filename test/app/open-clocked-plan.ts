import assert from "node:assert/strict";
import { issueCommentPayload, pullRequestPayload } from "../support/webhook-payloads.ts";
import type { FakeGitHub } from "./fake-github.ts";
import { startHarness, type Harness } from "./loom-harness.ts";

export type ClockedPlan = {
  harness: Harness;
  /** The plan's first dispatch. */
  dispatch: FakeGitHub["dispatches"][number];
  /** `login`'s comment on the pull request, dated a second after the app's clock. */
  comment(login: string, body: string, commentId: number): Promise<void>;
};

/**
 * `planText` opened as pull request #1 on an app whose clock ticks a second each time it is read,
 * so a person's comment can be dated after the moment a stage began waiting (GitHub dates comments
 * to the second); bob can read.
 */
export async function openClockedPlan(planText: string): Promise<ClockedPlan> {
  let time = Date.UTC(2026, 10, 22, 0, 0, 0);
  const harness = await startHarness({ planText, clock: () => (time += 1000) });
  harness.fake.roles.set("bob", "read");
  await harness.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: harness.headSha }),
  );
  const [dispatch] = harness.fake.dispatches;
  assert.ok(dispatch);
  return {
    harness,
    dispatch,
    comment: (login, body, commentId) =>
      harness.receive(
        "issue_comment",
        issueCommentPayload({
          number: 1,
          body,
          sender: { login },
          commentId,
          createdAt: new Date(time + 1000).toISOString(),
        }),
      ),
  };
}
