import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { callsLoomStage, classifyPath } from "../../action/src/publish/classify-path.ts";
import { readCallerWorkflows } from "../../action/src/publish/read-caller-workflows.ts";
import {
  isAppendOnly,
  keepsAllLines,
  onlyCombinesParents,
} from "../../action/src/publish/check-append-only.ts";
import { parseAddedLines } from "../../action/src/publish/parse-added-lines.ts";
import { parseBundleHeader } from "../../action/src/publish/parse-bundle-header.ts";
import { readPublishPolicy, STRICT_POLICY } from "../../action/src/publish/read-publish-policy.ts";
import { planText, STAGE_ID } from "./git-fixture.ts";

describe("classifyPath", () => {
  const cases: [string, ReturnType<typeof classifyPath>][] = [
    [".github/workflows/ci.yml", "workflow-change"],
    [".GitHub/Workflows/ci.yml", "workflow-change"],
    [".github/workflows/nested/x.yml", "workflow-change"],
    [".github/loom.yml", "loom-config-change"],
    [".github/LOOM.yaml", "loom-config-change"],
    [".github/workflows/loom.yml", "loom-config-change"],
    [".github/workflows/loom-callers.yml", "loom-config-change"],
    [".github/workflows", "loom-config-change"],
    [".github", "loom-config-change"],
    [".github/actions/build/action.yml", "github-change"],
    [".github/CODEOWNERS", "github-change"],
    [".github/dependabot.yml", "github-change"],
    [".github/copilot-instructions.md", "agent-config-change"],
    [".github/instructions/ts.instructions.md", "agent-config-change"],
    ["docs/.github/notes.md", null],
    [".claude", "agent-config-change"],
    [".githubx/a", null],
    [".claude/settings.json", "agent-config-change"],
    ["pkg/.claude/commands/x.md", "agent-config-change"],
    ["CLAUDE.md", "agent-config-change"],
    ["sub/CLAUDE.local.md", "agent-config-change"],
    [".mcp.json", "agent-config-change"],
    ["src/claude.ts", null],
    ["doc/plans/PLAN-evil.md", "plan-change"],
    ["PLAN-root.md", "plan-change"],
    ["deep/down/IN_PROGRESS-PLAN-x.md", "plan-change"],
    ["doc/plans/DONE-PLAN-x.md", "plan-change"],
    ["doc/plans/plan-lower.MD", "plan-change"],
    [".github/workflows/PLAN-x.md", "plan-change"],
    ["doc/plans/PLAN-x.txt", null],
    ["doc/plans/MY-PLAN-x.md", null],
    ["doc/PLANS.md", null],
    ["doc/loom/knowledge/learnings.md", "knowledge-rewrite"],
    ["doc/loom/knowledge/learnings/2026-11-22-api-0123abcd.md", "knowledge-rewrite"],
    ["doc/loom/knowledge/Learnings", "knowledge-rewrite"],
    ["doc/loom/knowledge/learnings-old/x.md", null],
    ["doc/loom/knowledge/deep/x.md", null],
    ["doc/loom/knowledge/notes.txt", null],
    ["src/index.ts", null],
  ];
  for (const [path, rule] of cases)
    it(`${path} → ${String(rule)}`, () => assert.equal(classifyPath(path, ["loom-callers.yml"]), rule));

  it("finds loom's callers by what they call", () => {
    assert.equal(callsLoomStage("    uses: loom-dev/loom/.github/workflows/loom-stage.yml@abc\n"), true);
    assert.equal(callsLoomStage('    uses: "o/r/.github/workflows/loom-stage-oidc.yaml@abc"\n'), true);
    assert.equal(callsLoomStage("    uses: ./.github/workflows/loom-stage.yml\n"), true);
    assert.equal(callsLoomStage("# see loom-stage.yml\n    uses: actions/checkout@abc\n"), false);
  });

  it("reads the caller's name from .github/loom.yml, loom.yml always included", () => {
    assert.deepEqual(readCallerWorkflows(null), ["loom.yml"]);
    assert.deepEqual(readCallerWorkflows("workflow: agents.yaml\nmax_parallel: 2\n"), [
      "loom.yml",
      "agents.yaml",
    ]);
    assert.deepEqual(readCallerWorkflows("workflow: ../../evil\n"), ["loom.yml"]);
    assert.deepEqual(readCallerWorkflows("workflow: [unclosed\n"), ["loom.yml"]);
  });
});

describe("append-only knowledge", () => {
  it("accepts appended lines and refuses edits, deletions and extending the last unterminated line", () => {
    assert.equal(isAppendOnly("a\nb\n", "a\nb\nc\n"), true);
    assert.equal(isAppendOnly("", "anything\n"), true);
    assert.equal(isAppendOnly("a\nb", "a\nb\nc"), true);
    assert.equal(isAppendOnly("a\nb", "a\nbc"), false);
    assert.equal(isAppendOnly("a\nb\n", "a\nB\n"), false);
    assert.equal(isAppendOnly("a\nb\n", "a\n"), false);
  });

  it("for a merge, accepts interleaved additions and refuses dropped lines", () => {
    assert.equal(keepsAllLines("a\nb\nx\n", "a\nb\ny\nx\n"), true);
    assert.equal(keepsAllLines("a\nb\nx\n", "a\nb\ny\n"), false);
  });
});

describe("merges into the learnings log", () => {
  it("accept a result made only of the parents' lines and refuse new, dropped or deleted ones", () => {
    assert.equal(onlyCombinesParents(["a\nb\n", "a\nc\n"], "a\nb\nc\n"), true);
    assert.equal(onlyCombinesParents([null, "x\n"], "x\n"), true);
    assert.equal(onlyCombinesParents(["a\n", "a\n"], "a\nnew\n"), false);
    assert.equal(onlyCombinesParents(["a\nb\n", "a\n"], "a\n"), false);
    assert.equal(onlyCombinesParents(["a\n", null], null), false);
  });
});

describe("parseAddedLines", () => {
  it("reads added lines with their path and line number from a plain patch", () => {
    const patch = [
      "diff --git a/src/a.ts b/src/a.ts",
      "--- a/src/a.ts",
      "+++ b/src/a.ts",
      "@@ -1,0 +2,2 @@",
      "+one",
      "++++ two",
      "diff --git a/gone b/gone",
      "--- a/gone",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-old",
    ].join("\n");
    assert.deepEqual(parseAddedLines(patch, 1), [
      { path: "src/a.ts", line: 2, text: "one" },
      { path: "src/a.ts", line: 3, text: "+++ two" },
    ]);
  });

  it("keeps only lines new against every parent in a combined merge patch", () => {
    const patch = [
      "diff --cc notes.md",
      "index 1,2..3",
      "--- a/notes.md",
      "+++ b/notes.md",
      "@@@ -1,1 -1,1 +1,3 @@@",
      "  shared",
      "+ from the first parent's side",
      "++resolution",
    ].join("\n");
    assert.deepEqual(parseAddedLines(patch, 2), [{ path: "notes.md", line: 3, text: "resolution" }]);
  });
});

describe("parseBundleHeader", () => {
  const sha = "a".repeat(40);
  const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

  it("reads prerequisites and refs of v2 and v3 bundles", () => {
    const v2 = parseBundleHeader(bytes(`# v2 git bundle\n-${sha} base\n${sha} refs/heads/x\n\nPACK`));
    assert.deepEqual(v2, {
      ok: true,
      header: { version: 2, prerequisites: [sha], refs: [{ sha, ref: "refs/heads/x" }] },
    });
    const v3 = parseBundleHeader(bytes(`# v3 git bundle\n@object-format=sha1\n${sha} refs/heads/y\n\nPACK`));
    assert.equal(v3.ok && v3.header.refs[0]?.ref, "refs/heads/y");
  });

  it("refuses what is not a bundle", () => {
    assert.equal(parseBundleHeader(bytes("hello\n\n")).ok, false);
    assert.equal(parseBundleHeader(bytes("# v2 git bundle\nno blank line")).ok, false);
    assert.equal(parseBundleHeader(bytes(`# v2 git bundle\n${sha} two words\n\n`)).ok, false);
  });
});

describe("readPublishPolicy", () => {
  it("allows nothing by default and when the plan is missing or broken", () => {
    assert.deepEqual(readPublishPolicy(planText(), STAGE_ID), { policy: STRICT_POLICY, problem: null });
    assert.deepEqual(readPublishPolicy(null, STAGE_ID).policy, STRICT_POLICY);
    assert.deepEqual(readPublishPolicy("# no metadata", STAGE_ID).policy, STRICT_POLICY);
    assert.deepEqual(
      readPublishPolicy(planText("allow_workflow_changes: [oops"), STAGE_ID).policy,
      STRICT_POLICY,
    );
    assert.deepEqual(
      readPublishPolicy(planText('allow_workflow_changes: "yes"'), STAGE_ID).policy,
      STRICT_POLICY,
    );
  });

  it("reads plan-level flags, overridden by the stage's own", () => {
    const plan = planText("allow_workflow_changes: true", "allow_knowledge_edits: true");
    assert.deepEqual(readPublishPolicy(plan, STAGE_ID).policy, {
      allow_workflow_changes: true,
      allow_agent_config_changes: false,
      allow_knowledge_edits: true,
    });
    const narrowed = planText("allow_workflow_changes: true", "allow_workflow_changes: false");
    assert.equal(readPublishPolicy(narrowed, STAGE_ID).policy.allow_workflow_changes, false);
  });

  it("does not give another stage's allowance to this stage", () => {
    const plan = planText("", "allow_workflow_changes: true");
    assert.equal(readPublishPolicy(plan, "some-other-stage").policy.allow_workflow_changes, false);
  });
});
