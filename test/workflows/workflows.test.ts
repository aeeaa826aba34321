import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { checkWorkflow } from "./check-workflow.ts";

const root = join(import.meta.dirname, "..", "..");
const workflowDir = join(root, ".github", "workflows");
const CALLER = join(root, "examples", "loom.yml");
const STAGE = join(workflowDir, "loom-stage.yml");
const shipped = [
  ...readdirSync(workflowDir)
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => join(workflowDir, name)),
  CALLER,
];
/** The inputs the app dispatches the caller with, all strings. */
const DISPATCH_INPUTS = [
  "key",
  "plan_path",
  "plan_id",
  "stage_id",
  "attempt",
  "kind",
  "branch",
  "base",
  "previous_run_id",
];

const read = (path: string): string => readFileSync(path, "utf8");
type StepYaml = { uses?: string; with?: Record<string, unknown>; env?: Record<string, string> };
type JobYaml = {
  uses: string;
  needs?: string;
  with?: Record<string, unknown>;
  secrets: Record<string, string>;
  permissions: Record<string, string>;
  steps: StepYaml[];
};
type Inputs = Record<string, { type?: string }>;
type WorkflowYaml = {
  "run-name": string;
  on: {
    workflow_dispatch: { inputs: Inputs };
    workflow_call: { inputs: Inputs; secrets: Record<string, unknown> };
  };
  permissions?: unknown;
  jobs: Record<string, JobYaml>;
};
/** Shipped files are checked field by field below; the cast only names what the tests read. */
const load = (path: string): WorkflowYaml => parse(read(path)) as WorkflowYaml;

describe("shipped workflows keep the static rules", () => {
  it("ships the stage workflow, the caller and CI", () => {
    const names = shipped.map((path) => path.slice(root.length + 1)).sort();
    for (const expected of [
      ".github/workflows/ci.yml",
      ".github/workflows/loom-stage.yml",
      "examples/loom.yml",
    ]) {
      assert.ok(names.includes(expected), `${expected} is shipped`);
    }
  });

  for (const path of shipped) {
    it(`${path.slice(root.length + 1)}: pinned uses, job permissions, no untrusted expressions in run, no Claude with contents: write`, () => {
      assert.deepEqual(checkWorkflow(read(path)), []);
    });
  }
});

describe("the rule checker catches a bad workflow", () => {
  const bad = `
on: pull_request_target
jobs:
  agent:
    runs-on: ubuntu-latest
    permissions:
      contents: write
    steps:
      - uses: actions/checkout@v5
        with: { ref: "\${{ github.event.pull_request.head.ref }}" }
      - uses: someone/action@main
      - uses: docker://alpine:3
      - run: echo "\${{ github.event.pull_request.title }}" && echo \${{ inputs.branch }}
      - run: claude -p "do it"
  unscoped:
    runs-on: ubuntu-latest
    steps:
      - uses: loom-dev/loom/action@0123456789abcdef0123456789abcdef01234567
        with: { mode: run }
      - run: echo "\${{ runner.temp }} is fine"
  loomwrite:
    runs-on: ubuntu-latest
    permissions: write-all
    steps:
      - uses: ./action
`;
  const problems = checkWorkflow(bad);
  const has = (rule: string, job: string, detail?: RegExp): boolean =>
    problems.some((p) => p.rule === rule && p.job === job && (detail === undefined || detail.test(p.detail)));

  it("flags uses: by tag, branch or unpinned docker image", () => {
    assert.ok(has("pinned", "agent", /actions\/checkout@v5/));
    assert.ok(has("pinned", "agent", /someone\/action@main/));
    assert.ok(has("pinned", "agent", /docker:\/\/alpine:3/));
    assert.ok(!problems.some((p) => p.rule === "pinned" && p.job !== "agent"), "SHA pins and ./ paths pass");
  });

  it("flags a job with no permissions:", () => {
    assert.ok(has("permissions", "unscoped"));
    assert.ok(!has("permissions", "agent"));
  });

  it("flags github.event and inputs expressions inside run:, not runner.temp", () => {
    assert.ok(has("expression-in-run", "agent", /github\.event\.pull_request\.title/));
    assert.ok(has("expression-in-run", "agent", /inputs\.branch/));
    assert.ok(!has("expression-in-run", "unscoped"));
  });

  it("flags jobs that run Claude (a claude command or the loom action in run mode) with contents: write", () => {
    assert.ok(has("claude-with-write", "agent"));
    assert.ok(has("claude-with-write", "loomwrite"));
    assert.ok(!has("claude-with-write", "unscoped"), "no write permission there");
  });

  it("flags a checkout that keeps credentials in a job that runs Claude", () => {
    assert.ok(has("credentials-with-claude", "agent"));
  });

  it("flags the model key in a job with contents: write even without the loom action", () => {
    const keyed = `
jobs:
  publish:
    permissions: { contents: write }
    steps:
      - uses: loom-dev/loom/action@0123456789abcdef0123456789abcdef01234567
        with: { mode: publish }
        env: { ANTHROPIC_API_KEY: "\${{ secrets.ANTHROPIC_API_KEY }}" }
`;
    assert.deepEqual(
      checkWorkflow(keyed).map((p) => p.rule),
      ["claude-with-write"],
    );
  });

  it("reports unparsable yaml instead of passing it", () => {
    assert.equal(checkWorkflow("jobs: [unclosed")[0]?.rule, "yaml");
  });
});

describe("the caller users copy", () => {
  const caller = load(CALLER);

  it("is at most 20 lines", () => {
    assert.ok(read(CALLER).trimEnd().split("\n").length <= 20);
  });

  it("is dispatched with exactly the app's string inputs and names its run by the key", () => {
    assert.deepEqual(Object.keys(caller.on.workflow_dispatch.inputs).sort(), [...DISPATCH_INPUTS].sort());
    for (const input of Object.values(caller.on.workflow_dispatch.inputs)) {
      assert.ok(input.type === undefined || input.type === "string");
    }
    assert.match(caller["run-name"], /\$\{\{\s*inputs\.key\s*\}\}/);
  });

  it("calls the stage workflow pinned by SHA with all inputs as one JSON value and only the model key", () => {
    const jobs = Object.values(caller.jobs);
    assert.equal(jobs.length, 1);
    const [job] = jobs;
    assert.ok(job !== undefined);
    assert.match(job.uses, /^[\w.-]+\/[\w.-]+\/\.github\/workflows\/loom-stage\.yml@[0-9a-f]{40}$/);
    assert.deepEqual(job.with, { request: "${{ toJSON(inputs) }}" });
    assert.deepEqual(Object.keys(job.secrets), ["ANTHROPIC_API_KEY"]);
    assert.equal(
      job.permissions.contents,
      "write",
      "the called publish job needs contents: write from its caller",
    );
  });
});

describe("the stage workflow", () => {
  const stage = load(STAGE);

  it("is called with the request JSON and the model key as a secret", () => {
    assert.deepEqual(Object.keys(stage.on.workflow_call.inputs), ["request"]);
    assert.equal(stage.on.workflow_call.inputs.request?.type, "string");
    assert.deepEqual(Object.keys(stage.on.workflow_call.secrets), ["ANTHROPIC_API_KEY"]);
    assert.deepEqual(stage.permissions, {}, "nothing by default; each job asks for its own");
  });

  it("runs the session read-only with the key through env only, and publishes with write and no key", () => {
    const { run, publish } = stage.jobs;
    assert.ok(run !== undefined && publish !== undefined);
    assert.deepEqual(run.permissions.contents, "read");
    const session = run.steps.find((step) => step.with?.mode === "run");
    assert.ok(session !== undefined);
    assert.match(session.uses ?? "", /^loom-dev\/loom\/action@[0-9a-f]{40}$/);
    assert.deepEqual(session.env, { ANTHROPIC_API_KEY: "${{ secrets.ANTHROPIC_API_KEY }}" });
    const checkout = run.steps.find((step) => String(step.uses).startsWith("actions/checkout@"));
    assert.equal(checkout?.with?.["persist-credentials"], false);
    assert.equal(checkout?.with?.ref, "${{ fromJSON(inputs.request).branch }}");

    assert.deepEqual(publish.needs, "run");
    assert.deepEqual(publish.permissions, { contents: "write" });
    assert.ok(publish.steps.some((step) => step.with?.mode === "publish"));
    assert.ok(!JSON.stringify(publish).includes("ANTHROPIC"), "no model key in the publish job");
    assert.ok(!publish.steps.some((step) => step.with?.mode === "run"));
  });

  it("installs, before the session, exactly the Claude Code version loom is tested against", () => {
    const pkg = JSON.parse(read(join(root, "package.json"))) as { devDependencies: Record<string, string> };
    const tested = pkg.devDependencies["@anthropic-ai/claude-code"];
    assert.match(tested ?? "", /^\d+\.\d+\.\d+$/, "package.json pins Claude Code exactly");
    const steps = stage.jobs.run?.steps ?? [];
    const install = steps.findIndex((step) =>
      String((step as { run?: string }).run ?? "").includes(`@anthropic-ai/claude-code@${tested}`),
    );
    const session = steps.findIndex((step) => step.with?.mode === "run");
    assert.ok(install >= 0, `the run job installs @anthropic-ai/claude-code@${tested}`);
    assert.ok(install < session, "Claude Code is installed before the session step");
  });

  it("reads only the dispatch inputs from the request", () => {
    const text = read(STAGE);
    const used = [...text.matchAll(/fromJSON\(inputs\.request\)\.(\w+)/g)].map((m) => m[1]);
    assert.ok(used.length > 0);
    for (const name of used) assert.ok(DISPATCH_INPUTS.includes(name ?? ""), `${name} is a dispatch input`);
  });
});
