import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { derivePlanId } from "../../src/plan/derive-plan-id.ts";
import { discoverPlanPaths } from "../../src/plan/discover-plan-paths.ts";
import { extractMetadata } from "../../src/plan/extract-metadata.ts";
import { extractPlanName } from "../../src/plan/extract-plan-name.ts";

describe("extractMetadata finds the yaml the way the reference CLI does", () => {
  it("takes the first ```yaml block between the markers, trimmed", () => {
    const text =
      "# P\n\n<!-- loom METADATA -->\n\n```yaml\n\nloom:\n  version: 1\n```\n\n<!-- END loom METADATA -->\n";
    const found = extractMetadata(text);
    assert.ok(found.ok);
    assert.equal(found.yaml, "loom:\n  version: 1");
    assert.equal(text.slice(found.yamlOffset, found.yamlOffset + 5), "loom:");
  });

  it("accepts a four-backtick fence and keeps inner three-backtick code blocks", () => {
    const text =
      "<!-- loom METADATA -->\n````yaml\nloom:\n  description: |\n    ```rust\n    fn x() {}\n    ```\n````\n<!-- END loom METADATA -->";
    const found = extractMetadata(text);
    assert.ok(found.ok);
    assert.ok(found.yaml.includes("```rust"));
    assert.ok(found.yaml.endsWith("```"));
  });

  it("skips code blocks of other languages before the yaml fence", () => {
    const text =
      "<!-- loom METADATA -->\n```rust\nfn main() {}\n```\n```yaml\nloom: {}\n```\n<!-- END loom METADATA -->";
    const found = extractMetadata(text);
    assert.ok(found.ok);
    assert.equal(found.yaml, "loom: {}");
  });

  it("ignores a prose mention of the marker without the comment opener and METADATA blocks after the first", () => {
    const text =
      "See the loom METADATA block below.\n<!-- loom METADATA -->\n```yaml\nfirst: 1\n```\n<!-- END loom METADATA -->\n<!-- loom METADATA -->\n```yaml\nsecond: 2\n```\n<!-- END loom METADATA -->";
    const found = extractMetadata(text);
    assert.ok(found.ok);
    assert.equal(found.yaml, "first: 1");
  });

  it("reads CRLF files", () => {
    const text =
      "# P\r\n<!-- loom METADATA -->\r\n```yaml\r\nloom: 1\r\n```\r\n<!-- END loom METADATA -->\r\n";
    const found = extractMetadata(text);
    assert.ok(found.ok);
    assert.equal(found.yaml, "loom: 1");
  });

  const failures = [
    { name: "no marker", text: "# Plan\n\nprose only\n", problem: "no-metadata-block", offset: 0 },
    {
      name: "no END marker",
      text: "# P\n<!-- loom METADATA -->\n```yaml\nloom: 1\n```\n",
      problem: "no-end-marker",
      offset: 4,
    },
    {
      name: "an END marker only before the start",
      text: "<!-- END loom METADATA -->\n<!-- loom METADATA -->\n```yaml\nx: 1\n```\n",
      problem: "no-end-marker",
      offset: 27,
    },
    {
      name: "no yaml fence",
      text: "<!-- loom METADATA -->\n```json\n{}\n```\n<!-- END loom METADATA -->",
      problem: "no-yaml-fence",
      offset: 0,
    },
    {
      name: "a yaml fence only after the END marker",
      text: "<!-- loom METADATA -->\n<!-- END loom METADATA -->\n```yaml\nx: 1\n```\n",
      problem: "no-yaml-fence",
      offset: 0,
    },
    {
      name: "an unclosed fence",
      text: "<!-- loom METADATA -->\n````yaml\nx: 1\n```\n<!-- END loom METADATA -->",
      problem: "no-closing-fence",
      offset: 23,
    },
  ] as const;
  for (const { name, text, problem, offset } of failures) {
    it(`reports ${problem} for ${name}, at the right place`, () => {
      const found = extractMetadata(text);
      assert.equal(found.ok, false);
      if (found.ok) return;
      assert.equal(found.problem, problem);
      assert.equal(found.offset, offset);
    });
  }
});

describe("plan name and id", () => {
  const names = [
    ["# PLAN: Test Plan\n", "Test Plan"],
    ["# Plan: GitHub Integration\n", "GitHub Integration"],
    ["# plan: lower case\n", "lower case"],
    ["# My Plan\n", "My Plan"],
    ["intro\n\n  # Indented heading\n# Second\n", "Indented heading"],
    ["## Only a subheading\n", null],
  ] as const;
  for (const [text, name] of names) {
    it(`names ${JSON.stringify(text.split("\n")[0])} as ${JSON.stringify(name)}`, () => {
      assert.equal(extractPlanName(text), name);
    });
  }

  it("uses the file stem as the plan id, lifecycle prefix included", () => {
    assert.equal(derivePlanId("doc/plans/PLAN-auth.md"), "PLAN-auth");
    assert.equal(derivePlanId("doc/plans/IN_PROGRESS-PLAN-auth.md"), "IN_PROGRESS-PLAN-auth");
    assert.equal(derivePlanId("simple.md"), "simple");
  });
});

describe("discoverPlanPaths", () => {
  it("keeps PLAN-*.md files in any folder, with IN_PROGRESS- and DONE- prefixes, each once", () => {
    const paths = [
      "doc/plans/PLAN-a.md",
      "README.md",
      "doc/plans/IN_PROGRESS-PLAN-b.md",
      "DONE-PLAN-c.md",
      "doc/plans/PLAN-a.md",
      "doc/plans/PLAN-d.txt",
      "doc/plans/MY-PLAN-e.md",
      "doc/plans/plan-f.md",
      "doc/PLAN-g.md/notes.txt",
    ];
    assert.deepEqual(discoverPlanPaths(paths), [
      "doc/plans/PLAN-a.md",
      "doc/plans/IN_PROGRESS-PLAN-b.md",
      "DONE-PLAN-c.md",
    ]);
  });
});
