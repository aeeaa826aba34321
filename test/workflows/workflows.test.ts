import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { checkWorkflow } from "./check-workflow.ts";

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
