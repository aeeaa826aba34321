import { test } from "node:test";
import assert from "node:assert/strict";
import type { CommandName } from "../../src/orchestrator/events.ts";
import { Story, makePlan } from "./story.ts";

const pair = makePlan([
  ["a", []],
  ["b", ["a"]],
]);

/** The reply body to `/loom <command> <stage>` after `setUp`. */
function answer(setUp: (story: Story) => void, command: CommandName, stageId: string): string | null {
  const story = new Story(pair);
  setUp(story);
  story.command(command, stageId);
  const [reply] = story.of("reply");
  assert.ok(reply, "every command gets a reply");
  return reply.body;
}

const CASES: [string, (story: Story) => void, CommandName, string, string][] = [
  ["skip a merged stage", (s) => s.pass("a"), "skip", "a", "`a` is completed and merged already"],
  [
    "block a stage being merged",
    (s) => s.run("a", "completed"),
    "block",
    "a",
    "`a` is completed and being merged",
  ],
  ["block a skipped stage", (s) => s.command("skip", "b"), "block", "b", "`b` is skipped already"],
  ["unblock a running stage", () => undefined, "unblock", "a", "`a` is not blocked (it is executing)"],
  [
    "retry a stage a label blocks",
    (s) => s.send({ type: "labels.changed", labels: ["loom:block:a"] }),
    "retry",
    "a",
    "`a` is blocked by a label: remove the label first",
  ],
  ["retry a running stage", () => undefined, "retry", "a", "`a` is running: `/loom cancel a` first"],
  ["retry a stage that has not run", () => undefined, "retry", "b", "`b` has not run yet (waiting-for-deps)"],
  ["cancel a stage with nothing running", () => undefined, "cancel", "b", "`b` has no running session"],
];

for (const [what, setUp, command, stageId, reason] of CASES) {
  test(`/loom ${command} refused: ${what}`, () => {
    assert.equal(answer(setUp, command, stageId), `loom could not ${command} \`${stageId}\`: ${reason}`);
  });
}

test("/loom cancel on a stage waiting out a retry cancels the retry and leaves it for a person", () => {
  const story = new Story(pair);
  story.run("a", "crashed");
  story.command("cancel", "a");
  assert.equal(story.of("reply")[0]?.reaction, "+1");
  assert.equal(story.stage("a").retryAt, null);
  assert.equal(story.stage("a").blockedBy, "command");
  assert.equal(story.stage("a").notes.at(-1)?.text, "automatic retry cancelled by @octocat");
  story.send({ type: "tick" }, 3_600_000);
  assert.deepEqual(story.dispatched(), []);
});

test("/loom cancel on a running merge session leaves the stage merge-blocked", () => {
  const story = new Story(pair);
  story.run("a", "completed");
  story.merge("a", "conflict");
  story.send({ type: "run.dispatched", stageId: "a", attempt: 2, runId: 8 });
  story.command("cancel", "a");
  assert.equal(story.stage("a").status, "merge-blocked");
  assert.equal(story.stage("a").blockedBy, null);
  assert.equal(story.stage("a").notes.at(-1)?.text, "merge session cancelled by @octocat");
  assert.deepEqual(
    story.of("cancelRun").map((c) => c.runId),
    [8],
  );
});

test("skipping or blocking a running stage cancels its run and says who did it", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
    ]),
  );
  story.send({ type: "run.dispatched", stageId: "a", attempt: 1, runId: 1 });
  story.send({ type: "run.dispatched", stageId: "b", attempt: 1, runId: 2 });
  story.command("skip", "a");
  story.command("block", "b");
  assert.equal(story.stage("a").sessions[0]?.detail, "skipped by @octocat");
  assert.equal(story.stage("b").sessions[0]?.detail, "blocked by @octocat");
  assert.equal(story.stage("b").notes.at(-1)?.text, "blocked by @octocat");
  assert.match(
    story.stage("a").notes.at(-1)?.text ?? "",
    /^skipped by @octocat: dependents count it as done/,
  );
});

test("a command that did what it asked is answered with a bare 👍", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
      ["c", []],
    ]),
  );
  story.send({ type: "run.dispatched", stageId: "c", attempt: 1, runId: 9 });
  const answers: [string, string | null][] = [];
  for (const [command, stageId] of [
    ["skip", "a"],
    ["block", "b"],
    ["cancel", "c"],
  ] as const) {
    story.command(command, stageId);
    answers.push(...story.of("reply").map((r): [string, string | null] => [r.reaction, r.body]));
  }
  assert.deepEqual(answers, [
    ["+1", null],
    ["+1", null],
    ["+1", null],
  ]);
  assert.equal(story.stage("c").sessions[0]?.detail, "cancelled by @octocat");
  assert.equal(story.stage("c").notes.at(-1)?.text, "cancelled by @octocat; `/loom retry c` to run again");
  story.command("cancel", "b");
  assert.equal(story.of("reply")[0]?.body, "loom could not cancel `b`: `b` has no running session");
  assert.equal(story.stage("b").blockedBy, "command");
});

test("/loom retry of a merge refused for a reason merges again, answered with a 👍 and noted", () => {
  const story = new Story(makePlan([["a", []]]));
  story.run("a", "completed");
  story.merge("a", "error");
  story.command("retry", "a");
  assert.deepEqual(
    story.of("reply").map((r) => [r.reaction, r.body]),
    [["+1", null]],
  );
  assert.equal(story.of("mergeBranch").length, 1);
  assert.ok(story.stage("a").notes.some((n) => n.text === "retry requested by @octocat"));
});

test("/loom unblock puts a stage whose dependencies are merged straight back in line", () => {
  const story = new Story(makePlan([["a", []]]));
  story.command("block", "a");
  story.command("unblock", "a");
  assert.deepEqual(
    story
      .stage("a")
      .notes.slice(-2)
      .map((n) => n.text),
    ["unblocked by @octocat", "attempt 2: stage session dispatched"],
  );
});

test("re-running the check suite takes up stages whose retries ran out and stages waiting for a retry", () => {
  const story = new Story(
    makePlan([
      ["a", []],
      ["b", []],
    ]),
    { settings: { maxAttempts: 1 } },
  );
  story.run("a", "crashed");
  assert.equal(story.stage("a").blockedBy, "retries");
  const waiting = new Story(makePlan([["a", []]]));
  waiting.run("a", "crashed");
  for (const s of [story, waiting]) {
    s.send({
      type: "command.received",
      command: "retry",
      sender: "octocat",
      source: { kind: "check-suite-rerequest", checkSuiteId: 1 },
    });
    assert.equal(s.of("reply")[0]?.reaction, "+1");
    assert.deepEqual(s.dispatched(), ["a"]);
  }
});
