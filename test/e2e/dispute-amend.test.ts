import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { CheckRunRecord, CommentRecord } from "../emulator/emulator-state.ts";
import { dispatchesOf, mergesOf, type Dispatch, type Merge, type PullRecord } from "./e2e-requests.ts";
import { BOT, startE2E, type E2E } from "./harness.ts";
import {
  inSequence,
  planText,
  rewriteFile,
  scriptStages,
  writeFiles,
  type StageScript,
} from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-lint.md";
const PLAN = planText(
  "Lint",
  `
- id: a
  name: Linted
  description: Write a.txt
  acceptance: ["grep -q written a.txt", "./tools/strict-lint a.txt"]
`,
);
const REASON = "tools/strict-lint does not exist in this repository; no stage creates it";
/** The example caller pinned to `main` (see continue-stage.test.ts): its stage workflow runs check runs. */
const CALLER = readFileSync(path.resolve(import.meta.dirname, "../../examples/loom.yml"), "utf8").replace(
  /(loom-stage\.yml)@[0-9a-f]{40}/,
  "$1@main",
);

/** The session disputes criterion 2 (index 1) in the file its prompt names, beside its learnings file. */
const dispute: StageScript = () => [
  {
    blocks: [
      {
        type: "tool_use",
        name: "Bash",
        input: {
          command: `printf '%s' '{"criterion_index": 1, "reason": "${REASON}"}' > "$(dirname "$LOOM_LEARNINGS_FILE")/dispute.json"`,
          description: "Dispute criterion 2",
        },
      },
    ],
  },
  { blocks: [{ type: "text", text: "Done; criterion 2 disputed." }] },
];

/**
 * The acceptance for `adjudication` (issue 33, item 6), through the real app, the real
 * stage workflow and action and the real Claude Code: the session disputes a criterion that cannot
 * pass; the stage waits for a person with the dispute on its check run; a reader's `/loom amend`
 * is refused; a writer's runs the checks again with the amendment (no model) on the disputed
 * commit, which merges, with the amendment on record in the status comment.
 */
describe(
  "a disputed criterion waits for a person, and /loom amend lets the stage pass",
  { timeout: 240_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let waiting: CheckRunRecord | undefined;
    let checked: string | null = null;
    let readerReply: CommentRecord | undefined;
    let dispatchesAfterReader: Dispatch[] = [];
    let merge: Merge | undefined;
    /** Model requests per finished run. */
    const modelRequests = new Map<number, number>();
    /** The retry's prompt (its first model request) and a's check run after it. */
    let retryPrompt = "";
    let afterRetry: CheckRunRecord | undefined;
    before(async () => {
      e2e = await startE2E({
        files: { ".github/workflows/loom.yml": CALLER },
        script: scriptStages({
          a: inSequence(writeFiles({ "a.txt": "written\n" }), dispute),
          "a:3": rewriteFile("a.txt", "written, again\n"),
        }),
        onRunnerEvent: (event) => {
          if (event.type !== "job.finished") return;
          modelRequests.set(event.runId, event.modelRequests?.length ?? 0);
          const first = event.modelRequests?.find((r) => r.kind === "main");
          const run = e2e?.emulator.state.runs.find((r) => r.id === event.runId);
          if (first !== undefined && run?.inputs["attempt"] === "3")
            retryPrompt = JSON.stringify(first.body?.messages ?? []);
        },
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      waiting = structuredClone(
        await e2e.waitFor(
          "a's check run to wait for a decision",
          async () =>
            (await e2e.checkRuns(pull)).find(
              (r) => r.name === "loom: a" && r.conclusion === "action_required",
            ),
          90_000,
        ),
      );
      checked = await e2e.emulator.repo().git.readBranch(`loom/pr-${pull.number}/PLAN-lint/a`);
      const bobs = await e2e.emulator.as("bob").comment(pull.number, "/loom amend a 2 true");
      readerReply = await e2e.waitFor("the reply to the reader", () =>
        e2e.emulator.state.comments.find((c) => c.user === BOT && c.body.includes("@bob") && c.id > bobs.id),
      );
      await e2e.app.engine.idle();
      dispatchesAfterReader = dispatchesOf(e2e.emulator.requests);
      // GitHub stamps a comment to the second; one written in the second the wait began counts as
      // written before it (adjudicate.ts): a person reads the dispute first.
      await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 5));
      const alice = e2e.emulator.as("alice");
      await alice.comment(pull.number, "/loom amend a 2 `test -f a.txt`");
      merge = await e2e.waitFor(
        "a to merge",
        () => mergesOf(e2e.emulator.requests).find((m) => m.head.endsWith("/a") && m.status === 201),
        90_000,
      );
      await e2e.app.engine.idle();
      // The amendment holds for the stage's later sessions: a retry is told it and checked with it.
      await alice.comment(pull.number, "/loom retry a");
      await e2e.waitFor(
        "a to merge again",
        () =>
          mergesOf(e2e.emulator.requests).filter((m) => m.head.endsWith("/a") && m.status === 201).length >=
          2,
        90_000,
      );
      await e2e.app.engine.idle();
      afterRetry = structuredClone((await e2e.checkRuns(pull)).find((r) => r.name === "loom: a"));
    });
    after(async () => {
      await e2e?.close();
    });

    it("holds a with the disputed criterion, the session's reason and the commands on its check run", () => {
      assert.ok(checked, e2e.describe());
      const summary = waiting?.output.summary ?? "";
      assert.ok(
        summary.includes("**The session disputes acceptance criterion 2** `./tools/strict-lint a.txt`"),
        summary,
      );
      assert.ok(summary.includes(REASON), summary);
      assert.ok(summary.includes(`its checks ran on \`${checked.slice(0, 7)}\``), summary);
      assert.ok(summary.includes("`/loom amend a 2 <command>`"), summary);
      assert.deepEqual(
        waiting?.actions.map((a) => a.identifier),
        ["reject", "retry", "skip"],
      );
    });

    it("refuses a reader's /loom amend and dispatches nothing for it", () => {
      assert.match(readerReply?.body ?? "", /did nothing: @bob has read access; loom needs write or above/);
      assert.deepEqual(
        dispatchesAfterReader.map((d) => d.stageId),
        ["a"],
      );
    });

    it("runs the checks again with the amendment and no model, and merges exactly the disputed commit", () => {
      const kinds = dispatchesOf(e2e.emulator.requests).map((d) => `${d.stageId}:${d.kind}`);
      assert.deepEqual(kinds.slice(0, 2), ["a:stage", "a:check"], e2e.describe());
      const check = e2e.emulator.state.runs.find((r) => r.inputs["kind"] === "check");
      assert.equal(modelRequests.get(check?.id ?? 0), 0, "the check run asked no model");
      assert.equal(merge?.sha, checked);
    });

    it("holds the amendment for a later /loom retry of a: its session is told the amended criterion and its checks run it", () => {
      assert.deepEqual(
        dispatchesOf(e2e.emulator.requests).map((d) => `${d.stageId}:${d.kind}:${d.attempt}`),
        ["a:stage:1", "a:check:2", "a:stage:3"],
        e2e.describe(),
      );
      assert.match(retryPrompt, /- \[ \] `test -f a\.txt`/);
      assert.doesNotMatch(retryPrompt, /- \[ \] `\.\/tools\/strict-lint/);
      assert.match(retryPrompt, /criterion 2 is `test -f a\.txt`, amended by @alice/);
      const summary = afterRetry?.output.summary ?? "";
      assert.match(summary, /### Checks \(attempt 3: 2 passed, 0 failed\)/, summary);
      assert.match(summary, /\| ✅ \| acceptance \| test -f a\.txt \|/, summary);
    });

    it("records the amendment on the pull request and leaves the plan file as written", async () => {
      const status = e2e.emulator.state.comments.find(
        (c) => c.user === BOT && c.body.includes("Amended acceptance criteria"),
      );
      assert.ok(
        status?.body.includes(
          "`a` criterion 2: `test -f a.txt` instead of `./tools/strict-lint a.txt`, by @alice",
        ),
        status?.body,
      );
      // loom renames the plan file as the plan runs (IN_PROGRESS-, DONE-); its text stays the person's.
      const git = e2e.emulator.repo().git;
      const files = (await git.listTree(pull.headRef, "doc/plans")) ?? [];
      const plan = files.find((f) => f.path.endsWith("PLAN-lint.md"));
      const text = plan ? await git.readBlob(pull.headRef, plan.path) : null;
      assert.ok(
        text?.toString("utf8").includes('acceptance: ["grep -q written a.txt", "./tools/strict-lint a.txt"]'),
        files.map((f) => f.path).join(),
      );
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
    });
  },
);
