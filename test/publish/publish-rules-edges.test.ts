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
import {
  extractMetadataYaml,
  readPublishPolicy,
  STRICT_POLICY,
} from "../../action/src/publish/read-publish-policy.ts";
import { readRetirePolicy } from "../../action/src/publish/read-retire-policy.ts";
import { DEFAULT_RETIRE_POLICY } from "../../src/knowledge/find-retired-learnings.ts";
import { planText, STAGE_ID } from "./git-fixture.ts";

// The edges of the publish rules' pure parts, found by mutation testing (issue 12): each case is
// one a session or a person can produce, and the rule it pins is named in the test.

describe("classifyPath: the edges of each protected area", () => {
  const cases: [string, ReturnType<typeof classifyPath>][] = [
    // A plan's name must end in .md: a backup or a look-alike is ordinary content.
    ["doc/plans/PLAN-x.md.orig", null],
    // Copilot's prompt files, custom agents and chat modes are agent configuration like its instructions.
    [".github/prompts/review.prompt.md", "agent-config-change"],
    [".github/agents/reviewer.md", "agent-config-change"],
    [".github/chatmodes/plan.chatmode.md", "agent-config-change"],
    // Only .github/loom.yml itself is loom's config; a folder of that name is other .github content.
    [".github/loom.yml/notes.md", "github-change"],
    // Only a caller directly in .github/workflows/ is loom's config; a nested one is a workflow.
    [".github/workflows/loom.yml/build.yml", "workflow-change"],
    // Knowledge files: directly in doc/loom/knowledge/, named .md, from the repository's root.
    ["doc/loom/knowledge/mistakes.md", "knowledge-rewrite"],
    ["doc/loom/knowledge/a.md", "knowledge-rewrite"],
    ["vendor/doc/loom/knowledge/mistakes.md", null],
    ["doc/loom/knowledge/mistakes.md/notes.txt", null],
    // The learnings log: learnings.md exactly, or under learnings/, from the root.
    ["vendor/doc/loom/knowledge/learnings.md", null],
    ["doc/loom/knowledge/learnings.mdx", null],
  ];
  for (const [path, rule] of cases)
    it(`${path} → ${String(rule)}`, () => assert.equal(classifyPath(path, ["loom-callers.yml"]), rule));

  it("finds a caller whose uses: is followed by several spaces", () => {
    assert.equal(callsLoomStage("    uses:   ./.github/workflows/loom-stage.yml\n"), true);
  });
});

describe("readCallerWorkflows: only a plain file name in .github/workflows/ is a caller", () => {
  it("accepts .yml as well as .yaml, and refuses a path or another extension", () => {
    assert.deepEqual(readCallerWorkflows("workflow: agents.yml\n"), ["loom.yml", "agents.yml"]);
    assert.deepEqual(readCallerWorkflows("workflow: ../../evil.yml\n"), ["loom.yml"]);
    assert.deepEqual(readCallerWorkflows("workflow: agents.yml.txt\n"), ["loom.yml"]);
  });
});

describe("append-only knowledge: line edges", () => {
  it("accepts a file left as it was, even when its last line has no newline", () => {
    assert.equal(isAppendOnly("a\nb", "a\nb"), true);
  });

  it("a merge keeps a parent's lines when it only drops the final newline, not when it splits a line", () => {
    assert.equal(keepsAllLines("a\nb\n", "a\nb"), true);
    assert.equal(keepsAllLines("ab\n", "a\nb\n"), false);
  });

  it("an empty parent is kept by any result", () => {
    assert.equal(keepsAllLines("", "a\n"), true);
    assert.equal(onlyCombinesParents(["", "a\n"], "a\n"), true);
  });

  it("a merge where no side has the learnings log and neither does the result combines nothing wrongly", () => {
    assert.equal(onlyCombinesParents([null, null], null), true);
  });
});

describe("parseAddedLines: line numbers and files", () => {
  it("numbers added lines from the hunk's new start, past removed lines and 'No newline' markers", () => {
    const patch = [
      "diff --git a/src/a.ts b/src/a.ts",
      "--- a/src/a.ts",
      "+++ b/src/a.ts",
      "@@ -12,2 +12,12 @@",
      "-old one",
      "-old two",
      "\\ No newline at end of file",
      "+new one",
      "+new two",
      "diff --git a/b.txt b/b.txt",
      "--- a/b.txt",
      "+++ b/b.txt",
      "@@ -3,0 +4 @@",
      "+single",
    ].join("\n");
    assert.deepEqual(parseAddedLines(patch, 1), [
      { path: "src/a.ts", line: 12, text: "new one" },
      { path: "src/a.ts", line: 13, text: "new two" },
      { path: "b.txt", line: 4, text: "single" },
    ]);
  });

  it("reads a quoted path (git quotes names with special characters)", () => {
    const patch = [
      "diff --git a/x b/x",
      '--- "a/caf\\303\\251.txt"',
      '+++ "b/caf\\303\\251.txt"',
      "@@ -0,0 +1 @@",
      "+token",
    ].join("\n");
    assert.deepEqual(parseAddedLines(patch, 1), [{ path: "caf\\303\\251.txt", line: 1, text: "token" }]);
  });

  for (const header of ["diff --cc", "diff --combined"]) {
    it(`starts a new file at each '${header}' header of a merge's patch`, () => {
      const patch = [
        `${header} first.md`,
        "index 1,2..3",
        "--- a/first.md",
        "+++ b/first.md",
        "@@@ -1,1 -1,1 +1,2 @@@",
        "  shared",
        "++resolved",
        `${header} second.md`,
        "index 4,5..6",
        "--- a/second.md",
        "+++ b/second.md",
        "@@@ -2,1 -2,1 +2,3 @@@",
        " +from the second parent only",
        "+ from the first parent only",
        "++both new",
      ].join("\n");
      assert.deepEqual(parseAddedLines(patch, 2), [
        { path: "first.md", line: 2, text: "resolved" },
        { path: "second.md", line: 4, text: "both new" },
      ]);
    });
  }
});

describe("parseBundleHeader: what a header may hold", () => {
  const sha = "a".repeat(40);
  const sha256 = "b".repeat(64);
  const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
  const reasonOf = (text: string | Uint8Array): string => {
    const read = parseBundleHeader(typeof text === "string" ? bytes(text) : text);
    assert.equal(read.ok, false, `expected a refusal for ${JSON.stringify(String(text).slice(0, 60))}`);
    return read.ok ? "" : read.reason;
  };

  it("reads SHA-256 prerequisites and refs, and a prerequisite without a comment", () => {
    assert.deepEqual(parseBundleHeader(bytes(`# v3 git bundle\n-${sha256}\n${sha256} refs/heads/x\n\n`)), {
      ok: true,
      header: { version: 3, prerequisites: [sha256], refs: [{ sha: sha256, ref: "refs/heads/x" }] },
    });
    assert.deepEqual(parseBundleHeader(bytes(`# v2 git bundle\n-${sha}\n${sha} refs/heads/x\n\n`)), {
      ok: true,
      header: { version: 2, prerequisites: [sha], refs: [{ sha, ref: "refs/heads/x" }] },
    });
  });

  it("says why a header is refused", () => {
    assert.match(reasonOf("# v2 git bundle\nno blank line"), /no bundle header/);
    assert.match(reasonOf("hello\n\n"), /unknown signature/);
    assert.match(reasonOf(`# v2 git bundle\nx${sha} refs/heads/x\n\n`), /unreadable bundle header line/);
  });

  const unreadable: [string, string][] = [
    ["capabilities in a v2 bundle (only v3 has them)", "@object-format=sha1"],
    ["text before a prerequisite", `junk-${sha} base`],
    ["a prerequisite id running on", `-${sha}g`],
    ["a short prerequisite id", "-a base"],
    ["text before a ref", `x${sha} refs/heads/x`],
    ["a short ref id", "a refs/heads/x"],
  ];
  for (const [name, line] of unreadable) {
    it(`refuses ${name}`, () => {
      assert.match(reasonOf(`# v2 git bundle\n${line}\n\n`), /unreadable bundle header line/);
    });
  }

  it("quotes an unreadable line shortened, never whole", () => {
    const reason = reasonOf(`# v2 git bundle\n${"z".repeat(5000)}\n\n`);
    assert.ok(reason.includes("z".repeat(120)));
    assert.ok(reason.length < 200, `${reason.length} characters`);
  });

  it("keeps reading a ref name that is not valid UTF-8 (it is then refused as not the stage branch)", () => {
    const head = bytes(`# v2 git bundle\n${sha} refs/heads/`);
    const read = parseBundleHeader(new Uint8Array([...head, 0xff, 0xfe, 10, 10]));
    assert.equal(read.ok && read.header.refs[0]?.ref, "refs/heads/\uFFFD\uFFFD");
  });

  it("looks for the blank line in the first MiB only", () => {
    const limit = 1024 * 1024;
    // The blank line starts on the last byte of the first MiB: past the limit.
    const start = bytes(`# v2 git bundle\n-${sha} `);
    const straddling = new Uint8Array(limit + 8).fill(0x61);
    straddling.set(start);
    straddling[limit - 1] = 10;
    straddling[limit] = 10;
    assert.match(reasonOf(straddling), /no bundle header/);
    const late = new Uint8Array(limit + 8).fill(0x61);
    late.set(start);
    late[limit + 2] = 10;
    late[limit + 3] = 10;
    assert.match(reasonOf(late), /no bundle header/);
  });
});

describe("readPublishPolicy: where the METADATA yaml is", () => {
  const metadata = (yaml: string, fence = "```yaml", close = "```"): string =>
    ["<!-- loom METADATA -->", fence, yaml, close, "<!-- END loom METADATA -->", ""].join("\n");
  const granting = "loom:\n  version: 1\n  allow_workflow_changes: true\n  stages:\n    - id: build-api";

  it("reads the block under the METADATA comment, not a yaml example earlier in the plan", () => {
    const plan = ["# Plan", "", "```yaml", granting, "```", "", planText()].join("\n");
    assert.deepEqual(readPublishPolicy(plan, STAGE_ID), { policy: STRICT_POLICY, problem: null });
  });

  it("reads a METADATA comment on the plan's first line", () => {
    assert.equal(readPublishPolicy(metadata(granting), STAGE_ID).policy.allow_workflow_changes, true);
    assert.equal(readPublishPolicy(`\n${metadata(granting)}`, STAGE_ID).policy.allow_workflow_changes, true);
  });

  it("needs the END comment", () => {
    const open = metadata(granting).replace("<!-- END loom METADATA -->", "");
    assert.deepEqual(readPublishPolicy(open, STAGE_ID), {
      policy: STRICT_POLICY,
      problem: "the plan has no loom METADATA yaml block",
    });
  });

  it("reads fences as Markdown does: info string after spaces, closing fence alone on its line", () => {
    assert.equal(extractMetadataYaml(metadata("a: 1", "``` yaml")), "a: 1\n");
    assert.equal(extractMetadataYaml(metadata("a: 1", "```yaml", "```  ")), "a: 1\n");
    assert.equal(extractMetadataYaml(metadata("a: |\n  run ```\nb: 2")), "a: |\n  run ```\nb: 2\n");
    assert.equal(extractMetadataYaml(metadata("a: 1\n```text\nb: 2")), "a: 1\n```text\nb: 2\n");
    const notAFence = ["<!-- loom METADATA: write it as ```yaml", "a: 1", "```", "-->", metadata("b: 2")];
    assert.equal(extractMetadataYaml(notAFence.join("\n")), "b: 2\n");
  });

  it("says why it fell back to allowing nothing", () => {
    const problem = (text: string | null, stage = STAGE_ID): string | null =>
      readPublishPolicy(text, stage).problem;
    assert.equal(problem(null), "the plan file was not found on the stage branch");
    assert.equal(problem("# no metadata"), "the plan has no loom METADATA yaml block");
    assert.equal(
      problem("<!-- loom METADATA -->\nno fence\n<!-- END loom METADATA -->\n"),
      "the plan has no loom METADATA yaml block",
    );
    const broken = problem(planText(`allow_workflow_changes: [${"x".repeat(500)}`)) ?? "";
    assert.match(broken, /^the plan's METADATA yaml does not parse: YAMLParseError/);
    assert.ok(broken.length <= "the plan's METADATA yaml does not parse: ".length + 200);
    assert.equal(
      problem(planText('allow_workflow_changes: "yes"')),
      "the plan's loom METADATA does not have the expected shape",
    );
    assert.equal(problem(planText(), "nope"), "stage nope is not in the plan");
  });

  it("refuses a stage flag that is not a boolean", () => {
    assert.deepEqual(readPublishPolicy(planText("", 'allow_workflow_changes: "yes"'), STAGE_ID), {
      policy: STRICT_POLICY,
      problem: "the plan's loom METADATA does not have the expected shape",
    });
  });

  it("reads allow_agent_config_changes from the plan", () => {
    assert.deepEqual(readPublishPolicy(planText("allow_agent_config_changes: true"), STAGE_ID).policy, {
      ...STRICT_POLICY,
      allow_agent_config_changes: true,
    });
  });
});

describe("readRetirePolicy: learnings: of .github/loom.yml", () => {
  it("keeps the defaults, silently, without the file, key or content", () => {
    assert.deepEqual(readRetirePolicy(null), { policy: DEFAULT_RETIRE_POLICY });
    assert.deepEqual(readRetirePolicy(""), { policy: DEFAULT_RETIRE_POLICY });
    assert.deepEqual(readRetirePolicy("workflow: loom.yml\n"), { policy: DEFAULT_RETIRE_POLICY });
  });

  it("reads the key, filling what it leaves out", () => {
    assert.deepEqual(readRetirePolicy("learnings:\n  retire_after_failures: 0\n"), {
      policy: { ...DEFAULT_RETIRE_POLICY, retire_after_failures: 0 },
    });
  });

  it("keeps the defaults and says why for broken YAML or a bad value", () => {
    assert.deepEqual(readRetirePolicy("learnings: [unclosed\n"), {
      policy: DEFAULT_RETIRE_POLICY,
      problem: ".github/loom.yml is not valid YAML",
    });
    const bad = readRetirePolicy("learnings:\n  retire_after_plans: -1\n");
    assert.equal(bad.policy, DEFAULT_RETIRE_POLICY);
    assert.match(bad.problem ?? "", /^\.github\/loom\.yml learnings\.retire_after_plans: \S/);
    const notAMap = readRetirePolicy("- a list\n");
    assert.equal(notAMap.policy, DEFAULT_RETIRE_POLICY);
    assert.match(notAMap.problem ?? "", /^\.github\/loom\.yml /);
  });

  it("refuses a YAML alias bomb instead of expanding it", () => {
    const bomb = [
      "a: &a [x, x]",
      ...Array.from(
        { length: 120 },
        (_, i) => `b${i}: &b${i} [*${i === 0 ? "a" : `b${i - 1}`}, *${i === 0 ? "a" : `b${i - 1}`}]`,
      ),
    ].join("\n");
    assert.equal(readRetirePolicy(bomb).problem, ".github/loom.yml is not valid YAML");
  });
});
