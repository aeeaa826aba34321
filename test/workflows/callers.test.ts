import assert from "node:assert/strict";
import { basename } from "node:path";
import { describe, it } from "node:test";
import { DISPATCH_INPUTS, EXAMPLES, loadWorkflow, read, STAGE, STAGE_OIDC } from "./workflow-yaml.ts";

const stageInputs = {
  "loom-stage.yml": loadWorkflow(STAGE).on.workflow_call,
  "loom-stage-oidc.yml": loadWorkflow(STAGE_OIDC).on.workflow_call,
};

/** The lines of a YAML file that do something (no comments, no blank lines). */
const meaningfulLines = (text: string): string[] =>
  text.split("\n").filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"));

describe("the caller users copy (examples/loom.yml: GitHub-hosted runner, API key)", () => {
  const path = EXAMPLES.find((file) => basename(file) === "loom.yml") ?? "";
  const job = Object.values(loadWorkflow(path).jobs)[0];

  it("is at most 20 lines", () => {
    assert.ok(read(path).trimEnd().split("\n").length <= 20);
  });

  it("passes only the request and only the model key", () => {
    assert.deepEqual(job?.with, { request: "${{ toJSON(inputs) }}" });
    assert.deepEqual(Object.keys(job?.secrets ?? {}), ["ANTHROPIC_API_KEY"]);
  });
});

for (const path of EXAMPLES) {
  const name = basename(path);
  const caller = loadWorkflow(path);
  const jobs = Object.values(caller.jobs);
  const job = jobs[0];

  describe(`examples/${name}`, () => {
    it("stays short (at most 24 lines that matter), in one job", () => {
      assert.ok(meaningfulLines(read(path)).length <= 24, `${meaningfulLines(read(path)).length} lines`);
      assert.equal(jobs.length, 1);
    });

    it("is dispatched with exactly the app's string inputs and names its run by the key", () => {
      assert.deepEqual(Object.keys(caller.on.workflow_dispatch.inputs).sort(), [...DISPATCH_INPUTS].sort());
      for (const input of Object.values(caller.on.workflow_dispatch.inputs))
        assert.ok(input.type === undefined || input.type === "string");
      assert.match(caller["run-name"], /\$\{\{\s*inputs\.key\s*\}\}/);
    });

    it("calls a loom stage workflow pinned by commit SHA with all dispatch inputs as one JSON request", () => {
      assert.ok(job !== undefined);
      const pin = /^[\w.-]+\/[\w.-]+\/\.github\/workflows\/(loom-stage(?:-oidc)?\.yml)@[0-9a-f]{40}$/.exec(
        job.uses ?? "",
      );
      assert.ok(pin !== null, `${job.uses} is a loom stage workflow pinned by SHA`);
      assert.equal(job.with?.request, "${{ toJSON(inputs) }}");
      const called = stageInputs[pin[1] as keyof typeof stageInputs];
      for (const input of Object.keys(job.with ?? {}))
        assert.ok(input in called.inputs, `${input} is an input of ${pin[1]}`);
      for (const [input, spec] of Object.entries(called.inputs))
        if (spec.required === true) assert.ok(input in (job.with ?? {}), `${input} is required`);
      for (const secret of Object.keys(job.secrets ?? {}))
        assert.ok(secret in (called.secrets ?? {}), `${secret} is a secret of ${pin[1]}`);
    });

    it("grants the publish job contents: write and checks: write, and id-token: write only when it calls the OIDC workflow", () => {
      assert.ok(job !== undefined);
      assert.equal(job.permissions.contents, "write", "the called publish job needs contents: write");
      // GitHub refuses the whole run at startup when a called job asks for more than its caller grants.
      assert.equal(job.permissions.checks, "write", "the called publish job asks for checks: write");
      const oidc = (job.uses ?? "").includes("/loom-stage-oidc.yml@");
      assert.equal(job.permissions["id-token"], oidc ? "write" : undefined);
      assert.equal(caller.permissions, undefined, "no workflow-wide grant");
      if (oidc) assert.equal(job.secrets, undefined, "no model secret on the OIDC path");
    });
  });
}
