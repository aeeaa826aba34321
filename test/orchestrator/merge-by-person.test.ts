import assert from "node:assert/strict";
import { test } from "node:test";
import type { CommandSource, PlanSpec } from "../../src/orchestrator/events.ts";
import { Story, makePlan } from "./story.ts";

/*
 * `auto_merge: false` (issue 33): a person merges the stage. Its passed run does not merge; it
 * waits in `needs-human-review` with the commit its checks ran on, its dependents wait with it, and
 * `/loom merge` (or the Merge button) merges exactly that commit, or nothing.
 */

const CHECKED = "c0ffee0000000000000000000000000000000001";
const AGAIN = "0deface000000000000000000000000000000002";
const RESOLVED = "5e70000000000000000000000000000000000003";

/** Plan a → b, with `auto_merge` on the plan and on stage a as given (undefined: not written). */
function gatedPlan(plan: boolean | undefined, stage: boolean | undefined): PlanSpec {
  const spec = makePlan([
    ["a", []],
    ["b", ["a"]],
  ]);
  return {
    ...spec,
    ...(plan === undefined ? {} : { autoMerge: plan }),
    stages: spec.stages.map((s) => (s.id === "a" && stage !== undefined ? { ...s, autoMerge: stage } : s)),
  };
}

/** The latest session of `id` is dispatched, starts and ends `completed` with its checks on `sha` (null: unnamed). */
function pass(story: Story, id: string, sha: string | null = CHECKED): void {
  const attempt = story.attemptOf(id);
  const runId = 100 * attempt + id.length;
  story.send({ type: "run.dispatched", stageId: id, attempt, runId });
  story.send({ type: "run.started", stageId: id, attempt, runId });
  story.send({
    type: "run.finished",
    stageId: id,
    attempt,
    runId,
    outcome: "completed",
    detail: "all acceptance checks passed",
    ...(sha === null ? {} : { headSha: sha }),
  });
}

/** Stage a of a plan that says `auto_merge: false` passed on `CHECKED` and waits for a person. */
function waiting(): Story {
  const story = new Story(gatedPlan(false, undefined));
  pass(story, "a");
  return story;
}

const COMMENT: CommandSource = { kind: "comment", commentId: 77 };
const BUTTON: CommandSource = { kind: "check-run-button", checkRunId: 55 };

/** A person's `/loom merge a …` (or press): `pin` names the commit or when the comment was written. */
function merge(
  story: Story,
  pin: { sha?: string; writtenAt?: number; source?: CommandSource; sender?: string } = {},
) {
  const { source = COMMENT, sender = "alice", ...rest } = pin;
  return story.send({ type: "command.received", command: "merge", stageId: "a", sender, source, ...rest });
}

const replyOf = (story: Story) => story.of("reply")[0];

const cases: { name: string; plan: boolean | undefined; stage: boolean | undefined; person: boolean }[] = [
  { name: "the plan says false", plan: false, stage: undefined, person: true },
  { name: "the stage says false under a plan that says true", plan: true, stage: false, person: true },
  { name: "the stage says false and the plan says nothing", plan: undefined, stage: false, person: true },
  { name: "the stage says true under a plan that says false", plan: false, stage: true, person: false },
  { name: "the plan says true", plan: true, stage: undefined, person: false },
  { name: "neither says anything", plan: undefined, stage: undefined, person: false },
];

for (const c of cases) {
  test(`auto_merge: when ${c.name}, a passed stage ${c.person ? "waits for a person with its checked commit" : "is merged by loom"}`, () => {
    const story = new Story(gatedPlan(c.plan, c.stage));
    pass(story, "a");
    const a = story.stage("a");
    const merges = story.of("mergeBranch");
    if (c.person) {
      assert.equal(a.status, "needs-human-review");
      assert.equal(a.checkedSha, CHECKED);
      assert.equal(a.mergeWaitSince, story.at);
      assert.deepEqual(merges, []);
      assert.match(a.notes.at(-1)?.text ?? "", /waiting for a person to merge c0ffee0 \(auto_merge: false\)/);
    } else {
      assert.equal(a.status, "completed");
      assert.deepEqual(
        merges.map((m) => m.sha),
        [CHECKED],
      );
    }
    assert.equal(story.stage("b").status, "waiting-for-deps");
  });
}

test("the dependents of a stage waiting for a person wait too, and start once it is merged", () => {
  const story = waiting();
  story.send({ type: "tick" }, 3_600_000);
  assert.deepEqual(story.dispatched(), []);
  assert.equal(story.stage("b").status, "waiting-for-deps");
  merge(story);
  assert.deepEqual(story.dispatched(), [], "asking for the merge is not the merge");
  story.send({ type: "merge.finished", stageId: "a", outcome: "merged", sha: "m".repeat(40), detail: "" });
  assert.equal(story.stage("a").merged, true);
  assert.deepEqual(story.dispatched(), ["b"]);
});

test("a writer's /loom merge merges exactly the checked commit, by SHA, with a 👍", () => {
  const story = waiting();
  merge(story, { writtenAt: story.at + 1000 });
  const [effect] = story.of("mergeBranch");
  assert.equal(effect?.sha, CHECKED);
  assert.equal(effect?.head, "loom/pr-7/PLAN-demo/a");
  assert.equal(effect?.base, "feature/demo");
  assert.equal(story.stage("a").status, "completed");
  assert.equal(story.stage("a").mergeWaitSince, undefined);
  assert.match(story.stage("a").notes.at(-1)?.text ?? "", /merge requested/);
  assert.ok(story.stage("a").notes.some((n) => n.text === "merge of c0ffee0 requested by @alice"));
  assert.deepEqual([replyOf(story)?.reaction, replyOf(story)?.body], ["+1", null]);
});

test("/loom merge naming the checked commit, in full or by a prefix of 7 or more, merges it", () => {
  for (const sha of [CHECKED, CHECKED.slice(0, 7), CHECKED.slice(0, 14).toUpperCase()]) {
    const story = waiting();
    merge(story, { sha });
    assert.deepEqual(
      story.of("mergeBranch").map((m) => m.sha),
      [CHECKED],
      sha,
    );
  }
});

test("a stale or wrong commit named in /loom merge is refused with the checked one, and nothing merges", () => {
  for (const sha of [AGAIN, "c0ffee", "c0ffee00000000000000000000000000000000019", "HEAD"]) {
    const story = waiting();
    merge(story, { sha });
    assert.deepEqual(story.of("mergeBranch"), [], sha);
    assert.equal(story.stage("a").status, "needs-human-review");
    const reply = replyOf(story);
    assert.equal(reply?.reaction, "-1");
    assert.match(
      reply?.body ?? "",
      /^loom could not merge `a`: `.+` is not the commit the checks of `a` ran on \(c0ffee0\): review c0ffee0, then `\/loom merge a c0ffee0`$/,
    );
  }
});

test("a Merge button from before the stage was checked again is refused; the current one merges", () => {
  const story = waiting();
  story.command("retry", "a");
  pass(story, "a", AGAIN);
  merge(story, { sha: CHECKED.slice(0, 14), source: BUTTON });
  assert.deepEqual(story.of("mergeBranch"), []);
  assert.match(
    replyOf(story)?.body ?? "",
    /`a` was checked again since that button was shown: its checks ran on 0deface now; review it and merge again/,
  );
  merge(story, { sha: AGAIN.slice(0, 14), source: BUTTON });
  assert.deepEqual(
    story.of("mergeBranch").map((m) => m.sha),
    [AGAIN],
  );
});

test("a /loom merge comment written before the stage started waiting is refused", () => {
  const story = waiting();
  const since = story.stage("a").mergeWaitSince ?? 0;
  for (const writtenAt of [since - 60_000, since]) {
    merge(story, { writtenAt });
    assert.deepEqual(story.of("mergeBranch"), []);
    assert.match(
      replyOf(story)?.body ?? "",
      /`a` started waiting with c0ffee0 after this comment was written/,
    );
  }
  merge(story, { writtenAt: since + 1000 });
  assert.equal(story.of("mergeBranch").length, 1);
});

test("a push to the stage branch after its checks: the merge is refused with the reason and the stage runs again", () => {
  const story = waiting();
  merge(story);
  story.send({
    type: "merge.finished",
    stageId: "a",
    outcome: "branch-moved",
    detail: "the stage branch loom/pr-7/PLAN-demo/a moved to 1234567 after the checks ran on c0ffee0",
  });
  const a = story.stage("a");
  assert.equal(a.status, "merge-blocked");
  assert.equal(a.merged, false);
  assert.equal(a.checkedSha, null);
  assert.match(a.notes.at(-1)?.text ?? "", /not merged: the stage branch .* moved to 1234567/);
  assert.equal(story.stage("b").status, "waiting-for-deps");
  story.command("retry", "a");
  assert.deepEqual(story.dispatched(), ["a"], "the push is run through the checks again");
  pass(story, "a", AGAIN);
  assert.equal(story.stage("a").status, "needs-human-review", "and waits for a person again");
  assert.equal(story.stage("a").checkedSha, AGAIN);
});

test("/loom merge of a stage that is not waiting for a person says why and changes nothing", () => {
  const auto = new Story(gatedPlan(undefined, undefined));
  merge(auto);
  assert.match(
    replyOf(auto)?.body ?? "",
    /`a` is executing; loom merges it itself once its checks pass \(its plan does not say `auto_merge: false`\)/,
  );
  const gated = new Story(gatedPlan(false, undefined));
  merge(gated);
  assert.match(replyOf(gated)?.body ?? "", /`a` is executing, not waiting for a merge/);
  const merged = waiting();
  merge(merged);
  merge(merged);
  assert.match(replyOf(merged)?.body ?? "", /`a` is being merged/);
  for (const story of [auto, gated, merged]) assert.deepEqual(story.of("mergeBranch"), []);
});

test("a stage whose run did not name its checked commit waits, but no merge can be pinned: retry says how", () => {
  const story = new Story(gatedPlan(false, undefined));
  pass(story, "a", null);
  assert.equal(story.stage("a").status, "needs-human-review");
  assert.match(story.stage("a").notes.at(-1)?.text ?? "", /no merge can be pinned to it/);
  merge(story);
  assert.deepEqual(story.of("mergeBranch"), []);
  assert.match(replyOf(story)?.body ?? "", /does not know which commit the checks of `a` ran on/);
});

test("/loom retry runs a stage waiting for a person again; /loom skip lets its dependents start", () => {
  const retried = waiting();
  retried.command("retry", "a");
  assert.deepEqual(retried.dispatched(), ["a"]);
  assert.equal(retried.stage("a").attempt, 2);
  assert.equal(retried.stage("a").mergeWaitSince, undefined);
  const skipped = waiting();
  skipped.command("skip", "a");
  assert.equal(skipped.stage("a").status, "skipped");
  assert.deepEqual(skipped.dispatched(), ["b"]);
  assert.deepEqual(skipped.of("mergeBranch"), []);
});

test("a re-run of every failed check leaves a stage waiting for a person alone", () => {
  const story = waiting();
  story.send({
    type: "command.received",
    command: "retry",
    sender: "alice",
    source: { kind: "check-suite-rerequest", checkSuiteId: 9 },
  });
  assert.deepEqual(story.dispatched(), []);
  assert.equal(story.stage("a").status, "needs-human-review");
  assert.equal(replyOf(story)?.reaction, "-1");
});

test("after a merge conflict, the merge session's resolution waits for the person again before it merges", () => {
  const story = waiting();
  merge(story);
  story.send({ type: "merge.finished", stageId: "a", outcome: "conflict", detail: "conflict in x.txt" });
  assert.deepEqual(story.dispatched(), ["a"]);
  assert.equal(story.of("dispatchRun")[0]?.kind, "merge");
  pass(story, "a", RESOLVED);
  const a = story.stage("a");
  assert.equal(a.status, "needs-human-review");
  assert.equal(a.checkedSha, RESOLVED);
  assert.deepEqual(story.of("mergeBranch"), [], "the resolution is not merged unseen");
  assert.match(
    a.notes.at(-1)?.text ?? "",
    /merge session resolved the conflict; waiting for a person to merge 5e70000/,
  );
  merge(story, { sha: CHECKED });
  assert.deepEqual(
    story.of("mergeBranch"),
    [],
    "the commit approved before the conflict is not what merges now",
  );
  merge(story, { sha: RESOLVED.slice(0, 7) });
  assert.deepEqual(
    story.of("mergeBranch").map((m) => m.sha),
    [RESOLVED],
  );
});

test("a stage merged by a person and then lost to a force-push is merged again at the same commit", () => {
  const story = waiting();
  merge(story);
  story.send({ type: "merge.finished", stageId: "a", outcome: "merged", sha: "m".repeat(40), detail: "" });
  story.send({ type: "merge.lost", stageId: "a", headSha: story.state.pr.headSha, sha: CHECKED });
  assert.deepEqual(
    story.of("mergeBranch").map((m) => m.sha),
    [CHECKED],
  );
});
