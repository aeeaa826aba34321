import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { RunRecord } from "../emulator/emulator-state.ts";
import { createClient } from "../emulator/emulator-fixture.ts";
import type { Emulator } from "../emulator/start-emulator.ts";
import { startWorkflowEmulator } from "./workflow-emulator.ts";
import { createWorkflowExecutor, type WorkflowExecutor } from "./executor/create-workflow-executor.ts";
import { createCommitReader, MissingCommit } from "./executor/read-commit.ts";
import type { JobReport } from "./executor/run-context.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SECRET = "s3cret-value-of-the-repo";
const STAGE = "loom-dev/loom/.github/workflows/loom-stage.yml@552299ccaafc3d22a4d460b024aac4dee9b1b15f";

/** A process that exists and is not a zombie (an orphan killed here may wait for PID 1 to reap it). */
function isAlive(pid: number): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
}

/** Workflows of the emulator repository, each dispatched on its own. */
const WORKFLOWS: Record<string, string> = {
  "needs.yml": `on: workflow_dispatch
jobs:
  a:
    runs-on: ubuntu-latest
    outputs:
      x: \${{ steps.s.outputs.x }}
    steps:
      - id: s
        run: echo "x=from-a" >> "$GITHUB_OUTPUT"
  b:
    needs: a
    runs-on: ubuntu-latest
    steps:
      - env:
          X: \${{ needs.a.outputs.x }}
        run: test "$X" = from-a
      - run: exit 3
      - run: echo never
  c:
    needs: b
    runs-on: ubuntu-latest
    steps:
      - run: echo never
  d:
    needs: [a, b]
    if: always() && needs.b.result == 'failure'
    runs-on: ubuntu-latest
    steps:
      - run: echo "after b failed"
`,
  "files.yml": `on: workflow_dispatch
env:
  FROM_WORKFLOW: w
jobs:
  one:
    runs-on: ubuntu-latest
    env:
      FROM_JOB: j
    steps:
      - run: |
          echo "A=exported" >> "$GITHUB_ENV"
          mkdir -p "$RUNNER_TEMP/bin" && printf '#!/bin/sh\\necho tool-on-path\\n' > "$RUNNER_TEMP/bin/tool" && chmod +x "$RUNNER_TEMP/bin/tool"
          echo "$RUNNER_TEMP/bin" >> "$GITHUB_PATH"
          echo "::add-mask::masked-by-a-step"
          echo "shown: masked-by-a-step"
      - env:
          S: \${{ secrets.REPO_SECRET }}
        run: |
          echo "secret: $S"
          echo "token: \${GITHUB_TOKEN:-none} runtime: \${ACTIONS_RUNTIME_TOKEN:-none}"
          test "$A/$FROM_WORKFLOW/$FROM_JOB" = "exported/w/j"
          tool
      - run: npm install --global --no-audit --no-fund @anthropic-ai/claude-code@2.1.197 && claude --version
      - uses: actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8
        with:
          path: kept
      - uses: actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8
        with:
          path: dropped
          persist-credentials: false
      - run: |
          test -f kept/README.md
          git -C kept config --local --get-regexp 'extraheader' > /dev/null && echo "kept: credentials"
          git -C dropped config --local --get-regexp 'extraheader' || echo "dropped: none"
`,
  "other-claude.yml": `on: workflow_dispatch
jobs:
  one:
    runs-on: ubuntu-latest
    steps:
      - run: npm install --global @anthropic-ai/claude-code@2.0.0
`,
  "timeout.yml": `on: workflow_dispatch
jobs:
  slow:
    runs-on: ubuntu-latest
    timeout-minutes: 0.02
    steps:
      - run: |
          trap 'echo "interrupted by SIGINT"; exit 5' INT
          sleep 30 > /dev/null 2>&1 &
          echo $! > "$RUNNER_TEMP/../sleep.pid"
          wait $!
      - run: echo never
      - if: always()
        run: echo "always runs"
`,
  "cloud.yml": `on: workflow_dispatch
jobs:
  aws:
    runs-on: ubuntu-latest
    permissions: { id-token: write }
    steps:
      - uses: aws-actions/configure-aws-credentials@a03048d87541d1d9fcf2ecf528a4a65ba9bd7838
        with: { role-to-assume: "arn:aws:iam::1:role/r", aws-region: us-east-1 }
      - run: echo "aws $AWS_ACCESS_KEY_ID $AWS_REGION $AWS_DEFAULT_REGION secret:$AWS_SECRET_ACCESS_KEY"
  google:
    runs-on: ubuntu-latest
    permissions: { id-token: write }
    steps:
      - id: auth
        uses: google-github-actions/auth@7c6bc770dae815cd3e89ee6cdf493a5fab2cc093
        with: { workload_identity_provider: "projects/1/locations/global/workloadIdentityPools/p/providers/p", service_account: "sa@p.iam.gserviceaccount.com" }
      - env:
          FILE: \${{ steps.auth.outputs.credentials_file_path }}
        run: |
          test "$FILE" = "$GOOGLE_APPLICATION_CREDENTIALS" && test "$FILE" = "$CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE"
          echo "google $GOOGLE_CLOUD_PROJECT $(cat "$FILE")"
  no-id-token:
    runs-on: ubuntu-latest
    permissions: { contents: read }
    steps:
      - uses: aws-actions/configure-aws-credentials@a03048d87541d1d9fcf2ecf528a4a65ba9bd7838
        with: { role-to-assume: "arn:aws:iam::1:role/r", aws-region: us-east-1 }
`,
  "unknown.yml": `on: workflow_dispatch
jobs:
  one:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020
`,
  "underprivileged.yml": `on: workflow_dispatch
jobs:
  stage:
    permissions: { contents: read, actions: read }
    uses: ${STAGE}
    with: { request: "\${{ toJSON(inputs) }}" }
`,
};

describe("the workflow executor runs workflow files as GitHub Actions does", () => {
  let emulator: Emulator;
  let executor: WorkflowExecutor;
  let workDir: string;
  const reports: JobReport[] = [];
  const runs = new Map<string, { run: RunRecord; conclusion: string }>();

  const dispatch = async (file: string): Promise<RunRecord> => {
    const head = (await emulator.repo().git.readBranch("main")) ?? "";
    return emulator.runs.createOther({
      workflowPath: `.github/workflows/${file}`,
      name: file,
      event: "workflow_dispatch",
      headBranch: "main",
      headSha: head,
      actor: "alice",
      displayTitle: file,
    });
  };
  const report = (runId: number, name: string): JobReport => {
    const found = reports.find((r) => r.runId === runId && r.name === name);
    assert.ok(found, `job ${name} of run ${runId} was reported`);
    return found;
  };

  before(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), "loom-executor-"));
    emulator = await startWorkflowEmulator(WORKFLOWS);
    executor = createWorkflowExecutor({
      emulator,
      workDir,
      source: { repository: "loom-dev/loom", mode: "pinned", root: ROOT, entry: "dist" },
      secrets: { REPO_SECRET: SECRET },
      cloud: {
        aws: {
          accessKeyId: "AKIAEXAMPLE",
          secretAccessKey: "aws-secret-example",
          sessionToken: "aws-session-example",
        },
        google: { credentials: { type: "external_account", audience: "example" }, project: "my-project" },
      },
      onJob: (job) => reports.push(job),
    });
    for (const file of [
      "needs.yml",
      "files.yml",
      "other-claude.yml",
      "timeout.yml",
      "underprivileged.yml",
      "cloud.yml",
    ]) {
      const run = await dispatch(file);
      runs.set(file, { run, conclusion: await executor.execute(run) });
    }
  });
  after(async () => {
    executor?.killAll();
    await emulator?.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it("runs jobs in needs order: outputs reach needs, a failure skips the jobs that need it unless their if: says always()", async () => {
    const { run, conclusion } = runs.get("needs.yml")!;
    assert.equal(conclusion, "failure");
    const { data } = await createClient(emulator).rest.actions.listJobsForWorkflowRun({
      owner: "acme",
      repo: "widgets",
      run_id: run.id,
    });
    assert.deepEqual(
      data.jobs.map((j) => [j.name, j.conclusion]),
      [
        ["a", "success"],
        ["b", "failure"],
        ["c", "skipped"],
        ["d", "success"],
      ],
    );
    const b = data.jobs.find((j) => j.name === "b");
    assert.deepEqual(
      b?.steps?.map((s) => [s.name, s.conclusion]),
      [
        ["Set up job", "success"],
        ['Run test "$X" = from-a', "success"],
        ["Run exit 3", "failure"],
        ["Run echo never", "skipped"],
        ["Complete job", "success"],
      ],
    );
    assert.deepEqual(b?.labels, ["ubuntu-latest"]);
    assert.equal(b?.runner_group_name, "GitHub Actions");
    assert.match(report(run.id, "b").log, /Process completed with exit code 3/);
    emulator.assertNoViolations();
  });

  it("gives run: steps the runner files, the job's env and PATH, and masks secrets and ::add-mask:: values in the log", () => {
    const { run, conclusion } = runs.get("files.yml")!;
    const job = report(run.id, "one");
    assert.equal(conclusion, "success", job.log);
    assert.match(job.log, /shown: \*\*\*/);
    assert.match(job.log, /secret: \*\*\*/);
    assert.ok(!job.log.includes(SECRET) && !job.log.includes("masked-by-a-step"));
    assert.match(job.log, /token: none runtime: none/, "no job token nor runtime token in run: steps");
    assert.match(job.log, /tool-on-path/);
  });

  it("installs the pinned Claude Code as a no-op against the tool cache, and refuses any other version", () => {
    const files = report(runs.get("files.yml")!.run.id, "one").log;
    assert.match(files, /up to date in/);
    assert.match(files, /2\.1\.197 \(Claude Code\)/);
    const other = runs.get("other-claude.yml")!;
    assert.equal(other.conclusion, "failure");
    assert.match(report(other.run.id, "one").log, /tool cache has @anthropic-ai\/claude-code@2\.1\.197 only/);
  });

  it("checks out from the emulator's git with the job token, keeping credentials only with persist-credentials", () => {
    const log = report(runs.get("files.yml")!.run.id, "one").log;
    assert.match(log, /kept: credentials/);
    assert.match(log, /dropped: none/);
    const kept = readFileSync(
      path.join(report(runs.get("files.yml")!.run.id, "one").workspace, "kept/.git/config"),
      "utf8",
    );
    assert.ok(!kept.includes("extraheader"), "the post step removed the kept credentials at the job's end");
  });

  it("stops a job past its timeout-minutes as GitHub does (SIGINT to the step), runs its always() steps, and kills what it left running", () => {
    const { run, conclusion } = runs.get("timeout.yml")!;
    const job = report(run.id, "slow");
    assert.equal(conclusion, "failure");
    assert.match(job.log, /interrupted by SIGINT/);
    assert.match(job.log, /exceeded the maximum execution time of 0.02 minutes/);
    assert.deepEqual(
      job.steps.map((s) => s.conclusion),
      ["failure", "skipped", "success"],
    );
    const pid = Number(readFileSync(path.join(job.workspace, "../sleep.pid"), "utf8"));
    assert.ok(!isAlive(pid), "the step's background sleep was killed at the job's end");
  });

  it("fails a run at startup when a called job asks for more than its caller grants, before any job runs", async () => {
    const { run, conclusion } = runs.get("underprivileged.yml")!;
    assert.equal(conclusion, "startup_failure");
    assert.equal(
      executor.startupFailures.get(run.id),
      "The nested job 'publish' is requesting 'contents: write', but is only allowed 'contents: read'.",
    );
    const { data } = await createClient(emulator).rest.actions.listJobsForWorkflowRun({
      owner: "acme",
      repo: "widgets",
      run_id: run.id,
    });
    assert.equal(data.total_count, 0);
  });

  it("logs in to AWS and Google Cloud through the stand-ins (what the real actions export), only with id-token: write", () => {
    const { run, conclusion } = runs.get("cloud.yml")!;
    assert.equal(conclusion, "failure");
    assert.match(report(run.id, "aws").log, /aws AKIAEXAMPLE us-east-1 us-east-1 secret:\*\*\*/);
    assert.equal(report(run.id, "aws").conclusion, "success");
    assert.match(
      report(run.id, "google").log,
      // The service account's project (sa@p.iam…), as the real action computes it.
      /google p \{"type":"external_account","audience":"example"\}/,
    );
    assert.equal(report(run.id, "no-id-token").conclusion, "failure");
    assert.match(report(run.id, "no-id-token").log, /Could not get ID token/);
  });

  it("reads a pinned uses: from this repository's history, and names a commit the clone lacks", async () => {
    const reader = createCommitReader(ROOT);
    assert.match(
      await reader.readFile("552299ccaafc3d22a4d460b024aac4dee9b1b15f", ".github/workflows/loom-stage.yml"),
      /name: loom stage/,
    );
    await assert.rejects(
      reader.readFile("0123456789abcdef0123456789abcdef01234567", ".github/workflows/loom-stage.yml"),
      (error: Error) =>
        error instanceof MissingCommit &&
        /commit 0123456789abcdef0123456789abcdef01234567 is not in/.test(error.message),
    );
  });

  it("fails loudly on a uses: it has no stand-in for, naming it", async () => {
    const run = await dispatch("unknown.yml");
    await assert.rejects(
      executor.execute(run),
      /no stand-in for actions\/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020/,
    );
    assert.equal(emulator.runs.find(run.id).conclusion, "failure");
  });
});
