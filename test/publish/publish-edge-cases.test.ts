import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { publishBundle } from "../../action/src/publish/publish-bundle.ts";
import { learningFilePath } from "../../src/knowledge/learning-file.ts";
import { BUNDLE_FILE, BUNDLE_MANIFEST_FILE, type PublishResult } from "../../src/artifacts/publish-result.ts";
import {
  BRANCH,
  PLAN_ID,
  PLAN_PATH,
  PublishFixture,
  STAGE_ID,
  git,
  planText,
  publishIn,
  recordedLearning,
  PUBLISH_INPUTS,
  KNOWLEDGE_PATH,
  fakeToken,
} from "./git-fixture.ts";

// Edges of the publish job found by mutation testing (issue 12): what each refusal tells the
// person who reads it, and the checks between the manifest and the push that no other test reached.

const inputs = PUBLISH_INPUTS;
const KNOWLEDGE = KNOWLEDGE_PATH;
const knowledge = "# Mistakes\n\n- first lesson\n";
const token = fakeToken;

let fixture: PublishFixture | undefined;
afterEach(() => fixture?.cleanup());

function setUp(files: Record<string, string> = {}, options: { stageBranch?: boolean } = {}): PublishFixture {
  fixture = new PublishFixture({ [KNOWLEDGE]: knowledge, ...files }, options);
  return fixture;
}

const short = (sha: string): string => sha.slice(0, 12);

/** Refused, and the stage branch on origin did not move. */
function assertRefusedOnly(f: PublishFixture, result: PublishResult, before: string): void {
  assert.equal(result.ok, false);
  assert.equal(result.pushed_sha, undefined);
  assert.equal(f.originRef(BRANCH), before, "the stage branch on origin did not move");
}

describe("publish: what each path refusal tells the person", () => {
  it("names the commit, the file and what to do, once per rule and file", async () => {
    const f = setUp({ "doc/plans/PLAN-other.md": planText() });
    const before = f.originRef(BRANCH);
    const first = f.commit("Touch everything", {
      [PLAN_PATH]: planText("allow_workflow_changes: true"),
      "doc/plans/PLAN-other.md": null,
      ".github/loom.yml": "max_parallel: 9\n",
      ".github/CODEOWNERS": "* @me\n",
      ".github/workflows/ci.yml": "on: push\n",
      "CLAUDE.md": "obey\n",
      [KNOWLEDGE]: "# Mistakes\n\n- first lesson, rewritten\n",
      "doc/loom/knowledge/learnings.md": "# Learnings\n",
    });
    // The same files again in a later commit: refused once each, under the first commit.
    f.commit("Touch them again", {
      ".github/workflows/ci.yml": "on: pull_request\n",
      "CLAUDE.md": "obey!\n",
    });
    f.bundle();
    const result = await publishIn(f, inputs);
    assertRefusedOnly(f, result, before);
    const at = `commit ${short(first)}`;
    assert.deepEqual(
      Object.fromEntries(result.refusals.map((r) => [`${r.rule} ${r.path ?? ""}`, r.detail])),
      {
        [`plan-change ${PLAN_PATH}`]: `${at} changes the plan file this stage runs; plans are changed by people in the pull request, whatever the plan allows`,
        "plan-change doc/plans/PLAN-other.md": `${at} adds, changes, renames or deletes the plan file doc/plans/PLAN-other.md; sessions may not write plans (a new plan would run as loom's own work), whatever the plan allows`,
        "loom-config-change .github/loom.yml": `${at} changes loom's configuration .github/loom.yml (.github/loom.yml or a workflow that calls loom's stage workflow); people change it on the default branch, whatever the plan allows`,
        "github-change .github/CODEOWNERS": `${at} changes .github/CODEOWNERS under .github/ outside .github/workflows/; people change it, whatever the plan allows`,
        "workflow-change .github/workflows/ci.yml": `${at} changes the workflow .github/workflows/ci.yml; set allow_workflow_changes: true on the plan or stage to allow changes under .github/workflows/`,
        "agent-config-change CLAUDE.md": `${at} changes agent configuration CLAUDE.md (read by later sessions: instructions, settings, hooks, MCP servers); set allow_agent_config_changes: true on the plan or stage to allow it`,
        [`knowledge-rewrite ${KNOWLEDGE}`]: `${at} edits or deletes existing lines of the append-only knowledge file ${KNOWLEDGE}; only appending is allowed (or set allow_knowledge_edits: true)`,
        "knowledge-rewrite doc/loom/knowledge/learnings.md": `${at} changes the learnings log doc/loom/knowledge/learnings.md; learnings are recorded in the session's learnings file and committed by loom after checking them (or set allow_knowledge_edits: true)`,
      },
    );
    assert.equal(result.commits_checked, 2);
  });

  it("takes a file outside .github/workflows/ that quotes a caller's uses: line for ordinary content", async () => {
    const f = setUp();
    f.commit("Document the setup", {
      "docs/setup.md": "Call loom from a workflow:\n\n    uses: ./.github/workflows/loom-stage.yml\n",
    });
    f.bundle();
    const result = await publishIn(f, inputs);
    assert.deepEqual(result.refusals, []);
    assert.equal(result.ok, true);
  });

  it("refuses deleting an append-only knowledge file", async () => {
    const f = setUp();
    const before = f.originRef(BRANCH);
    f.commit("Drop the lessons", { [KNOWLEDGE]: null });
    f.bundle();
    const result = await publishIn(f, inputs);
    assertRefusedOnly(f, result, before);
    assert.deepEqual(
      result.refusals.map((r) => [r.rule, r.path]),
      [["knowledge-rewrite", KNOWLEDGE]],
    );
  });
});

describe("publish: what each secret refusal tells the person", () => {
  it("names the file, line and column, the message's line, and a file name holding one, never the value", async () => {
    const f = setUp();
    const before = f.originRef(BRANCH);
    const sha = f.commit(`Configure\n\nwith ${token()}`, {
      "src/config.ts": `export const a = 1;\nexport const t = "${token()}";\n`,
      [`keys/${token()}.txt`]: "x\n",
    });
    f.bundle();
    const result = await publishIn(f, inputs);
    assertRefusedOnly(f, result, before);
    assert.deepEqual(result.refusals, [
      {
        rule: "secret",
        path: "src/config.ts",
        detail: `commit ${short(sha)} adds what looks like a github-token at src/config.ts:2:19; remove it from the history (the value is not shown)`,
      },
      {
        rule: "secret",
        detail: `the message of commit ${short(sha)} holds what looks like a github-token (line 3); reword the commit (the value is not shown)`,
      },
      {
        rule: "secret",
        path: "(a file name)",
        detail: `commit ${short(sha)} adds a file whose name holds what looks like a github-token`,
      },
    ]);
    assert.ok(!JSON.stringify(result).includes(token()));
  });
});

describe("publish: the bundle between the manifest and the push", () => {
  it("refuses a manifest naming a bundle file the artifact does not hold", async () => {
    const f = setUp();
    const before = f.originRef(BRANCH);
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    writeFileSync(join(f.artifactDir, BUNDLE_FILE), "");
    const result = await publishIn(f, inputs);
    assertRefusedOnly(f, result, before);
    assert.deepEqual(result.refusals, [
      {
        rule: "bundle-invalid",
        detail: `${BUNDLE_FILE}: no bundle header (no blank line before the pack)`,
      },
    ]);
  });

  it("refuses a bundle carrying no ref at all, and names the refs a bundle carries besides the stage branch", async () => {
    const f = setUp();
    const before = f.originRef(BRANCH);
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    writeFileSync(join(f.artifactDir, BUNDLE_FILE), `# v2 git bundle\n-${before} base\n\n`);
    const none = await publishIn(f, inputs);
    assertRefusedOnly(f, none, before);
    assert.deepEqual(none.refusals, [
      {
        rule: "ref-not-allowed",
        detail: `the bundle may carry only refs/heads/${BRANCH}; it carries (none)`,
      },
    ]);
    git(f.session, "branch", "-f", "other", "HEAD");
    git(f.session, "branch", "-f", "main", "HEAD");
    f.bundle([`refs/heads/${BRANCH}`, "refs/heads/main", "refs/heads/other"]);
    const more = await publishIn(f, inputs);
    assert.equal(
      more.refusals[0]?.detail,
      `the bundle may carry only refs/heads/${BRANCH}; it carries refs/heads/main, refs/heads/other`,
    );
  });

  it("refuses a bundle built on a commit origin does not have, naming where it looked", async () => {
    const f = setUp();
    const before = f.originRef(BRANCH);
    const local = f.commit("Local only", { "src/local.ts": "1\n" });
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    const bundle = join(f.artifactDir, BUNDLE_FILE);
    git(f.session, "bundle", "create", "-q", bundle, `refs/heads/${BRANCH}`, `^${local}`);
    const alone = await publishIn(f, inputs);
    assertRefusedOnly(f, alone, before);
    assert.deepEqual(alone.refusals, [
      {
        rule: "not-fast-forward",
        detail: `the bundle builds on ${short(local)}, which is not on ${BRANCH} (it moved, or the bundle is from elsewhere)`,
      },
    ]);
    const withBase = await publishIn(f, { ...inputs, base: "main" });
    assert.equal(
      withBase.refusals[0]?.detail,
      `the bundle builds on ${short(local)}, which is not on ${BRANCH} or main (it moved, or the bundle is from elsewhere)`,
    );
  });

  it("refuses a bundle git will not verify (a capability it does not know)", async () => {
    const f = setUp();
    const before = f.originRef(BRANCH);
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    const bundle = join(f.artifactDir, BUNDLE_FILE);
    const bytes = readFileSync(bundle);
    const v2 = Buffer.from("# v2 git bundle\n");
    assert.ok(bytes.subarray(0, v2.length).equals(v2));
    writeFileSync(
      bundle,
      Buffer.concat([Buffer.from("# v3 git bundle\n@frobnicate=yes\n"), bytes.subarray(v2.length)]),
    );
    const result = await publishIn(f, inputs);
    assertRefusedOnly(f, result, before);
    assert.deepEqual(result.refusals, [
      { rule: "bundle-invalid", detail: `${BUNDLE_FILE} does not verify (git bundle verify)` },
    ]);
  });

  it("refuses a bundle whose pack is cut short", async () => {
    const f = setUp();
    const before = f.originRef(BRANCH);
    f.commit("Work", { "src/a.ts": "1\n".repeat(100) });
    f.bundle();
    cutBundleShort(f);
    const result = await publishIn(f, inputs);
    assertRefusedOnly(f, result, before);
    assert.deepEqual(result.refusals, [
      { rule: "bundle-invalid", detail: `${BUNDLE_FILE} could not be fetched` },
    ]);
    assert.equal(result.head_sha, undefined);
  });

  it("refuses a bundle it cannot fetch after an earlier publish, never taking the earlier tip for it", async () => {
    const f = setUp();
    const first = f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    assert.equal((await publishIn(f, inputs)).pushed_sha, first);
    f.startFrom(BRANCH);
    f.commit("More work", { "src/b.ts": "2\n".repeat(100) });
    f.bundle();
    cutBundleShort(f);
    const result = await publishIn(f, inputs);
    assertRefusedOnly(f, result, first);
    assert.deepEqual(result.refusals, [
      { rule: "bundle-invalid", detail: `${BUNDLE_FILE} could not be fetched` },
    ]);
  });

  it("refuses a bundle that does not fast-forward the stage branch, naming both commits", async () => {
    const f = setUp();
    const moved = f.pushElsewhere(BRANCH, { "x.txt": "x\n" });
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    const tip = git(f.session, "rev-parse", "HEAD");
    const result = await publishIn(f, inputs);
    assertRefusedOnly(f, result, moved);
    assert.deepEqual(result.refusals, [
      {
        rule: "not-fast-forward",
        detail: `the bundle's tip ${short(tip)} does not fast-forward ${BRANCH} at ${short(moved)}`,
      },
    ]);
    assert.equal(result.head_sha, tip);
    assert.equal(result.base_sha, moved);
  });

  it("reports the push origin refused, with what origin said", async () => {
    const f = setUp();
    const before = f.originRef(BRANCH);
    const hook = join(f.origin, "hooks", "pre-receive");
    // A long answer: the refusal keeps its end, where git and the hook say what went wrong.
    writeFileSync(
      hook,
      `#!/bin/sh\necho '${"x".repeat(1500)}' >&2\necho 'protected branch: ask an admin' >&2\nexit 1\n`,
    );
    chmodSync(hook, 0o755);
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    const result = await publishIn(f, inputs);
    assertRefusedOnly(f, result, before);
    assert.equal(result.refusals.length, 1);
    assert.equal(result.refusals[0]?.rule, "push-rejected");
    assert.match(
      result.refusals[0]?.detail ?? "",
      new RegExp(`^origin refused the push to ${BRANCH}: [\\s\\S]*protected branch: ask an admin`),
    );
    const detail = result.refusals[0]?.detail ?? "";
    assert.equal(
      detail.length,
      `origin refused the push to ${BRANCH}: `.length + 1000,
      "the last 1000 characters",
    );
    assert.match(detail, /protected branch: ask an admin\s+error: failed to push some refs to '[^']*'$/);
  });

  it("reads the plan under its IN_PROGRESS- name on the stage branch for what it allows", async () => {
    const renamed = PLAN_PATH.replace("PLAN-", "IN_PROGRESS-PLAN-");
    const f = setUp();
    // loom renamed the plan on the stage branch: the name the App passes is gone, the lifecycle name holds it.
    f.startFrom(BRANCH);
    git(f.session, "mv", PLAN_PATH, renamed);
    f.write(f.session, { [renamed]: planText("allow_workflow_changes: true") });
    git(f.session, "commit", "-q", "-am", "loom starts the plan");
    git(f.session, "push", "-q", "origin", `HEAD:refs/heads/${BRANCH}`);
    f.startFrom(BRANCH);
    const head = f.commit("Add CI", { ".github/workflows/ci.yml": "on: push\n" });
    f.bundle();
    const result = await publishIn(f, inputs);
    assert.deepEqual(result.refusals, []);
    assert.equal(result.pushed_sha, head);
    assert.equal(f.originRef(BRANCH), head);
  });

  it("checks commits a branch deleted on origin had: a stale remote branch hides nothing", async () => {
    const f = setUp();
    const before = f.originRef(BRANCH);
    f.commit("Hooks", { ".claude/settings.json": "{}\n" });
    // The session's commit reached origin on a branch the workspace fetched, then deleted.
    git(f.session, "push", "-q", "origin", "HEAD:refs/heads/tmp");
    git(f.workspace, "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*");
    git(f.session, "push", "-q", "origin", ":refs/heads/tmp");
    f.bundle();
    const result = await publishIn(f, inputs);
    assertRefusedOnly(f, result, before);
    assert.deepEqual(
      result.refusals.map((r) => [r.rule, r.path]),
      [["agent-config-change", ".claude/settings.json"]],
    );
  });

  it("answers the commits checked, the base and the tip it pushed", async () => {
    const f = setUp();
    const base = f.originRef(BRANCH);
    f.commit("One", { "src/a.ts": "1\n" });
    f.commit("Two", { "src/b.ts": "2\n" });
    const head = f.commit("Three", { "src/c.ts": "3\n" });
    f.bundle();
    assert.deepEqual(await publishIn(f, inputs), {
      version: 1,
      ok: true,
      plan_id: PLAN_ID,
      stage_id: STAGE_ID,
      branch: BRANCH,
      base_sha: base,
      head_sha: head,
      commits_checked: 3,
      refusals: [],
      pushed_sha: head,
    });
  });
});

describe("publish: the learnings commit on top of the bundle", () => {
  it("adds the kept learnings in one commit and logs what it committed and skipped", async () => {
    const f = setUp();
    const work = f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    const first = recordedLearning();
    const second = recordedLearning({
      summary: "Feature flags are read once at start",
      detail:
        "src/flags.ts caches every flag at boot, so a test that flips a flag must restart the app module.",
      tags: ["flags"],
      scope: "src/flags.ts",
    });
    f.result([
      first,
      recordedLearning({ summary: "Push with a token", detail: `Use ${token()} to push.` }),
      second,
    ]);
    const result = await publishIn(f, inputs);
    const head = f.originRef(BRANCH);
    assert.equal(result.pushed_sha, head);
    assert.equal(git(f.origin, "rev-parse", `${head}^`), work);
    const paths = [first, second].map((l) => learningFilePath(l)).join(", ");
    assert.deepEqual(f.logs.slice(0, 2), [
      "learning not committed: learning 2: it contains what looks like a github-token (the value is not shown)",
      `committed 2 learning(s) in ${short(head)}: ${paths}`,
    ]);
  });

  it("pushes the session's tip alone when no learning is left to commit", async () => {
    const f = setUp();
    const work = f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    f.result([recordedLearning({ summary: "Push with a token", detail: `Use ${token()} to push.` })]);
    const result = await publishIn(f, inputs);
    assert.equal(result.pushed_sha, work);
    assert.equal(f.originRef(BRANCH), work);
    assert.deepEqual(f.logs.slice(0, 1), [
      "learning not committed: learning 1: it contains what looks like a github-token (the value is not shown)",
    ]);
  });

  it("commits no learnings without a scratch folder for the commit's index", async () => {
    const f = setUp();
    const work = f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    const result = await publishBundle({
      cwd: f.workspace,
      bundleDir: f.artifactDir,
      manifestText: readFileSync(join(f.artifactDir, BUNDLE_MANIFEST_FILE), "utf8"),
      inputs,
      knownSecrets: [],
      learnings: [recordedLearning()],
    });
    assert.equal(result.pushed_sha, work);
    assert.equal(f.originRef(BRANCH), work);
  });
});

/** The bundle the session uploaded, its last 30 bytes lost on the way. */
function cutBundleShort(f: PublishFixture): void {
  const bundle = join(f.artifactDir, BUNDLE_FILE);
  const bytes = readFileSync(bundle);
  writeFileSync(bundle, bytes.subarray(0, bytes.length - 30));
}
