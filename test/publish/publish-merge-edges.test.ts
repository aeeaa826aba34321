import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { PublishResult } from "../../src/artifacts/publish-result.ts";
import {
  BRANCH,
  PLAN_PATH,
  PublishFixture,
  git,
  planText,
  publishIn,
  PUBLISH_INPUTS,
  KNOWLEDGE_PATH,
  fakeToken,
} from "./git-fixture.ts";

// Merges and histories a session can make that the other publish tests do not (issue 12's
// mutation testing): what git's merge takes by itself passes, a session's own choice is checked,
// and a history brought in from elsewhere is checked from its first commit.

const inputs = PUBLISH_INPUTS;
const KNOWLEDGE = KNOWLEDGE_PATH;
const knowledge = "# Mistakes\n\n- first lesson\n";
const token = fakeToken;

let fixture: PublishFixture | undefined;
afterEach(() => fixture?.cleanup());

function setUp(files: Record<string, string> = {}): PublishFixture {
  fixture = new PublishFixture({ [KNOWLEDGE]: knowledge, ...files });
  return fixture;
}

/** A commit on origin's `branch` by a person: `files` written (null deletes). */
function personCommits(f: PublishFixture, branch: string, files: Record<string, string | null>): string {
  const clone = `${f.root}/person-${branch.replaceAll("/", "-")}-${Date.now()}`;
  git(f.root, "clone", "-q", "--branch", branch, f.origin, clone);
  for (const [path, content] of Object.entries(files)) {
    if (content === null) git(clone, "rm", "-q", path);
    else f.write(clone, { [path]: content });
  }
  git(clone, "add", "-A");
  git(clone, "commit", "-q", "-m", `a person's change on ${branch}`);
  git(clone, "push", "-q", "origin", `HEAD:refs/heads/${branch}`);
  return git(clone, "rev-parse", "HEAD");
}

/** The session merges origin's `other`, resolving as `resolve` says, and publishes. */
async function mergeOther(f: PublishFixture, resolve: Record<string, string | null>): Promise<PublishResult> {
  f.startFrom(BRANCH);
  f.commit("Stage work", { "src/a.ts": "1\n" });
  git(f.session, "fetch", "-q", "origin", "other");
  // A conflict is settled on the session's side (-X ours); `resolve` then writes the session's choice.
  git(f.session, "merge", "-q", "--no-ff", "--no-commit", "-X", "ours", "FETCH_HEAD");
  f.commit("Merge the pull request branch", resolve);
  assert.equal(git(f.session, "rev-list", "--parents", "-n1", "HEAD").split(" ").length, 3, "a merge");
  f.bundle();
  return publishIn(f, inputs);
}

describe("publish: a merge session's merge", () => {
  it("accepts keeping a person's change already on the stage branch", async () => {
    const f = setUp({ "CLAUDE.md": "old rules\n" });
    personCommits(f, BRANCH, { "CLAUDE.md": "new rules\n" });
    personCommits(f, "other", { "docs/readme.md": "hello\n" });
    const result = await mergeOther(f, {});
    assert.deepEqual(result.refusals, []);
    assert.equal(result.ok, true);
  });

  it("accepts a protected file both sides changed alike", async () => {
    const same = planText("allow_knowledge_edits: false");
    const f = setUp();
    personCommits(f, BRANCH, { [PLAN_PATH]: same });
    personCommits(f, "other", { [PLAN_PATH]: same, "docs/readme.md": "hello\n" });
    assert.deepEqual((await mergeOther(f, {})).refusals, []);
  });

  it("refuses a merge that changes a file both sides changed alike", async () => {
    const same = planText("allow_knowledge_edits: false");
    const f = setUp();
    personCommits(f, BRANCH, { [PLAN_PATH]: same });
    personCommits(f, "other", { [PLAN_PATH]: same, "docs/readme.md": "hello\n" });
    const result = await mergeOther(f, { [PLAN_PATH]: planText("allow_workflow_changes: true") });
    assert.deepEqual(
      result.refusals.map((r) => [r.rule, r.path]),
      [["plan-change", PLAN_PATH]],
    );
  });

  it("refuses a merge that rewrites a protected file only the stage branch had changed", async () => {
    const f = setUp({ "CLAUDE.md": "old rules\n" });
    personCommits(f, BRANCH, { "CLAUDE.md": "new rules\n" });
    personCommits(f, "other", { "docs/readme.md": "hello\n" });
    // The pull request's side left CLAUDE.md alone: git takes the stage branch's; the session wrote its own.
    const result = await mergeOther(f, { "CLAUDE.md": "rules of the session's own\n" });
    assert.deepEqual(
      result.refusals.map((r) => [r.rule, r.path]),
      [["agent-config-change", "CLAUDE.md"]],
    );
  });

  it("refuses a resolution that drops a line of an append-only knowledge file", async () => {
    const f = setUp();
    personCommits(f, "other", { [KNOWLEDGE]: `${knowledge}- from the pull request\n` });
    personCommits(f, BRANCH, { [KNOWLEDGE]: `${knowledge}- from the stage branch\n` });
    const result = await mergeOther(f, { [KNOWLEDGE]: `${knowledge}- from the stage branch\n` });
    assert.deepEqual(
      result.refusals.map((r) => [r.rule, r.path]),
      [["knowledge-rewrite", KNOWLEDGE]],
    );
  });

  it("accepts a merge that appends to a knowledge file only the pull request's side has, refuses one that edits it", async () => {
    const NEW = "doc/loom/knowledge/patterns.md";
    const added = "# Patterns\n\n- from the pull request\n";
    for (const [resolution, refused] of [
      [`${added}- the session's own, appended in the merge\n`, []],
      ["# Patterns\n\n- rewritten by the session\n", [["knowledge-rewrite", NEW]]],
    ] as const) {
      const f = setUp();
      personCommits(f, "other", { [NEW]: added });
      const result = await mergeOther(f, { [NEW]: resolution });
      assert.deepEqual(
        result.refusals.map((r) => [r.rule, r.path]),
        refused,
      );
      f.cleanup();
    }
  });

  it("refuses a merge that deletes an append-only knowledge file", async () => {
    const f = setUp();
    personCommits(f, "other", { [KNOWLEDGE]: `${knowledge}- from the pull request\n` });
    const result = await mergeOther(f, { [KNOWLEDGE]: null });
    assert.deepEqual(
      result.refusals.map((r) => [r.rule, r.path]),
      [["knowledge-rewrite", KNOWLEDGE]],
    );
  });

  it("accepts a resolution that brings both sides' learnings together, refuses one that drops a person's", async () => {
    const LOG = "doc/loom/knowledge/learnings.md";
    const log = "# Learnings\n\n- first\n";
    const both = `${log}- from the stage branch\n- from the pull request\n`;
    for (const [resolution, refused] of [
      [both, []],
      [`${log}- from the stage branch\n`, [["knowledge-rewrite", LOG]]],
    ] as const) {
      const f = setUp({ [LOG]: log });
      personCommits(f, "other", { [LOG]: `${log}- from the pull request\n` });
      personCommits(f, BRANCH, { [LOG]: `${log}- from the stage branch\n` });
      const result = await mergeOther(f, { [LOG]: resolution });
      assert.deepEqual(
        result.refusals.map((r) => [r.rule, r.path]),
        refused,
      );
      f.cleanup();
    }
  });

  it("does not refuse a token the pull request's side already had", async () => {
    const f = setUp();
    personCommits(f, "other", { "docs/notes.md": `key ${token()}\n` });
    assert.deepEqual((await mergeOther(f, {})).refusals, []);
  });

  it("refuses a token the resolution adds", async () => {
    const f = setUp();
    personCommits(f, "other", { "docs/notes.md": "first\n" });
    const result = await mergeOther(f, { "docs/notes.md": `first\nkey ${token()}\n` });
    assert.deepEqual(
      result.refusals.map((r) => [r.rule, r.path, /docs\/notes\.md:2:5;/.test(r.detail)]),
      [["secret", "docs/notes.md", true]],
    );
  });
});

describe("publish: an octopus merge", () => {
  it("is the session's own change: a protected file it takes from a merged branch is refused", async () => {
    const f = setUp({ "CLAUDE.md": "old rules\n" });
    personCommits(f, "other", { "CLAUDE.md": "new rules\n" });
    const third = personCommits(f, "main", { "docs/readme.md": "hello\n" });
    f.startFrom(BRANCH);
    f.commit("Stage work", { "src/a.ts": "1\n" });
    git(f.session, "fetch", "-q", "origin", "other", "main");
    git(f.session, "merge", "-q", "--no-ff", "-m", "Merge both", "origin/other", third);
    assert.equal(
      git(f.session, "rev-list", "--parents", "-n1", "HEAD").split(" ").length,
      4,
      "three parents",
    );
    f.bundle();
    const result = await publishIn(f, inputs);
    assert.deepEqual(
      result.refusals.map((r) => [r.rule, r.path]),
      [["agent-config-change", "CLAUDE.md"]],
    );
  });
});

describe("publish: a history brought in from elsewhere", () => {
  it("checks an unrelated history merged in from its first commit: paths and secrets", async () => {
    const f = setUp();
    f.startFrom(BRANCH);
    git(f.session, "checkout", "-q", "--orphan", "elsewhere");
    git(f.session, "rm", "-q", "-r", "-f", ".");
    const root = f.commit("Elsewhere", {
      ".claude/settings.json": "{}\n",
      "notes.txt": `key ${token()}\n`,
      "doc/loom/knowledge/elsewhere.md": "# Elsewhere\n",
    });
    git(f.session, "checkout", "-q", BRANCH);
    git(f.session, "merge", "-q", "--allow-unrelated-histories", "-m", "Bring it in", "elsewhere");
    f.bundle();
    const result = await publishIn(f, inputs);
    assert.equal(result.ok, false);
    assert.equal(result.commits_checked, 2);
    assert.deepEqual(
      result.refusals.map((r) => [r.rule, r.path, r.detail.startsWith(`commit ${root.slice(0, 12)} `)]),
      [
        ["agent-config-change", ".claude/settings.json", true],
        ["secret", "notes.txt", true],
      ],
    );
  });
});
