import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseCallerWorkflow } from "../../src/caller/parse-caller-workflow.ts";
import { MAIN_CONTRACT, STAGE_CONTRACTS } from "../../src/release/stage-contract.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const EXAMPLES = readdirSync(join(ROOT, "examples")).filter((name) => name.endsWith(".yml"));

const INPUTS = `    inputs:
      key: { required: true }
      previous_run_id: { required: false }
`;

describe("parseCallerWorkflow", () => {
  for (const name of EXAMPLES) {
    it(`reads examples/${name}: the pinned stage workflow and its line, every dispatch input, the job's grants`, () => {
      const text = readFileSync(join(ROOT, "examples", name), "utf8");
      const parsed = parseCallerWorkflow(text);
      assert.ok(parsed.ok, JSON.stringify(parsed));
      const { uses, inputs, grants } = parsed.caller;
      const line = text.split("\n").findIndex((l) => l.includes("/.github/workflows/loom-stage")) + 1;
      assert.equal(uses.line, line);
      assert.equal(uses.text, text.split("\n")[line - 1]?.trim());
      assert.equal(uses.repository, "loom-dev/loom");
      assert.equal(
        uses.workflow,
        text.includes("loom-stage-oidc.yml") ? "loom-stage-oidc.yml" : "loom-stage.yml",
      );
      assert.match(uses.ref ?? "", /^[0-9a-f]{40}$/);
      assert.deepEqual(Object.keys(inputs), [...STAGE_CONTRACTS[MAIN_CONTRACT].dispatchInputs]);
      assert.deepEqual(inputs["previous_run_id"], { required: false });
      assert.deepEqual(inputs["key"], { required: true });
      assert.ok(grants !== null && typeof grants === "object");
      assert.equal(grants["contents"], "write");
    });
  }

  it("reads a quoted ref, a branch ref, the workflow's own permissions and `on` as a list", () => {
    const parsed = parseCallerWorkflow(
      [
        "on: [workflow_dispatch]",
        "permissions: write-all",
        "jobs:",
        "  lint: { runs-on: ubuntu-latest, steps: [{ run: 'true' }] }",
        "  stage:",
        '    uses: "acme/loom-fork/.github/workflows/loom-stage-oidc.yml@main"',
        "",
      ].join("\n"),
    );
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.caller.uses, {
      repository: "acme/loom-fork",
      workflow: "loom-stage-oidc.yml",
      ref: "main",
      line: 6,
      text: 'uses: "acme/loom-fork/.github/workflows/loom-stage-oidc.yml@main"',
    });
    assert.deepEqual(parsed.caller.inputs, {});
    assert.equal(parsed.caller.grants, "write-all");
  });

  it("reads a repository's own copy of the stage workflow, with no ref; a job's permissions win over the workflow's", () => {
    const parsed = parseCallerWorkflow(
      `on:\n  workflow_dispatch:\n${INPUTS}permissions: write-all\njobs:\n  stage:\n    permissions: { contents: write }\n    uses: ./.github/workflows/loom-stage.yml\n`,
    );
    assert.ok(parsed.ok);
    assert.equal(parsed.caller.uses.repository, null);
    assert.equal(parsed.caller.uses.ref, null);
    assert.deepEqual(parsed.caller.grants, { contents: "write" });
    assert.deepEqual(parsed.caller.inputs, {
      key: { required: true },
      previous_run_id: { required: false },
    });
  });

  it("says why it cannot use a file: not YAML (with the line), not a mapping, no dispatch trigger, no job calling loom", () => {
    const cases: [string, RegExp, number | null][] = [
      [
        "on: workflow_dispatch\njobs: {}\njobs: {}\n",
        /not valid YAML: Map keys must be unique at line 3, column 1:$/,
        3,
      ],
      ["- a list\n", /not a workflow/, 1],
      [
        "on: push\njobs:\n  stage:\n    uses: loom-dev/loom/.github/workflows/loom-stage.yml@v1\n",
        /no `workflow_dispatch` trigger/,
        null,
      ],
      [
        "on: workflow_dispatch\njobs:\n  stage:\n    uses: loom-dev/loom/.github/workflows/other.yml@v1\n",
        /no job calls loom's stage workflow/,
        null,
      ],
    ];
    for (const [text, problem, line] of cases) {
      const parsed = parseCallerWorkflow(text);
      assert.ok(!parsed.ok, text);
      assert.match(parsed.problem, problem);
      assert.equal(parsed.line, line, text);
    }
  });
});
