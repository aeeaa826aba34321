import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PullRecord } from "./e2e-requests.ts";
import { dispatchesOf, mergesOf } from "./e2e-requests.ts";
import { createClient } from "../emulator/emulator-fixture.ts";
import { BOT, OWNER, REPO, startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-diamond.md";
const PLAN = planText(
  "Diamond",
  `
- id: a
  name: Foundation
  description: Write a.txt, the base every other stage builds on
  acceptance: ["grep -q alpha a.txt"]
- id: b
  name: Left
  description: Write b.txt next to a.txt
  dependencies: [a]
  acceptance: ["grep -q alpha a.txt", "grep -q beta b.txt"]
- id: c
  name: Right
  description: Write c.txt next to a.txt
  dependencies: [a]
  acceptance: ["grep -q alpha a.txt", "grep -q gamma c.txt"]
- id: d
  name: Join
  description: Write d.txt once a, b and c are in
  dependencies: [b, c]
  acceptance: ["cat a.txt b.txt c.txt d.txt"]
`,
);

describe(
  "a diamond plan (a → b, c → d) through the real app, the real action and Claude Code",
  { timeout: 280_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    const callerOutputs: Record<string, string>[] = [];
    before(async () => {
      e2e = await startE2E({
        onRunnerEvent: (event) => {
          if (event.type === "run.completed") callerOutputs.push(event.outputs);
        },
        script: scriptStages({
          a: writeFiles({ "a.txt": "alpha\n" }),
          b: writeFiles({ "b.txt": "beta\n" }),
          c: writeFiles({ "c.txt": "gamma\n" }),
          d: writeFiles({ "d.txt": "delta\n" }),
        }),
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      await e2e.waitForPlanEnd(pull, "PLAN-diamond", 4, 240_000);
    });
    after(async () => {
      await e2e?.close();
    });

    it("ends green: the plan's check run on the head and every stage's (where it ran) are a success", async () => {
      // The head's checks list: the plan's run. Each stage completed its run where it ran (loom's
      // merges moved the head since): not re-created on every merge.
      assert.deepEqual(
        (await e2e.headCheckRuns(pull)).map((r) => [r.name, r.conclusion]),
        [["loom: PLAN-diamond", "success"]],
      );
      const runs = await e2e.checkRuns(pull);
      assert.deepEqual(
        runs.map((r) => [r.name, r.status, r.conclusion]),
        [
          ["loom: a", "completed", "success"],
          ["loom: b", "completed", "success"],
          ["loom: c", "completed", "success"],
          ["loom: d", "completed", "success"],
          ["loom: PLAN-diamond", "completed", "success"],
        ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
        e2e.describe(),
      );
    });

    it("puts every stage's work on the pull request's branch (read with git from the bare repository)", async () => {
      const files = await Promise.all(
        ["a.txt", "b.txt", "c.txt", "d.txt"].map((f) => e2e.readFile(pull.headRef, f)),
      );
      assert.deepEqual(files, ["alpha\n", "beta\n", "gamma\n", "delta\n"]);
    });

    it("archives the plan as the reference CLI does: DONE-PLAN-diamond.md on the branch, still one plan", async () => {
      assert.equal(await e2e.readFile(pull.headRef, "doc/plans/DONE-PLAN-diamond.md"), PLAN);
      assert.equal(await e2e.readFile(pull.headRef, PLAN_PATH), null);
      assert.equal(await e2e.readFile(pull.headRef, "doc/plans/IN_PROGRESS-PLAN-diamond.md"), null);
      const git = e2e.emulator.repo().git;
      const head = (await git.readBranch(pull.headRef)) ?? "";
      const subjects = await Promise.all(
        (await git.listCommits(await git.resolve(pull.baseRef), head)).map(
          async (sha) => (await git.readCommit(sha)).message,
        ),
      );
      assert.equal(
        subjects.filter((m) => m.startsWith("loom: started PLAN-diamond")).length,
        1,
        subjects.join("\n"),
      );
      assert.equal(
        subjects.filter((m) => m.startsWith("loom: every stage of PLAN-diamond is done")).length,
        1,
      );
      const plans = await e2e.store.listPlansForPull("acme", "widgets", pull.number);
      assert.deepEqual(
        plans.map((p) => p.key.planPath),
        [PLAN_PATH],
        "the renamed file is the same plan, never a new one",
      );
    });

    it("renames on the head it knows, each rename at the first try (the DONE- one on loom's last merge), after the first dispatch", () => {
      const requests = e2e.emulator.requests;
      const renames = requests.filter((r) => r.login === BOT && r.operationId === "git/update-ref");
      assert.deepEqual(
        renames.map((r) => r.status),
        [200, 200],
        "IN_PROGRESS- and DONE-, neither refused as not a fast-forward",
      );
      const firstDispatch = dispatchesOf(requests)[0]?.index ?? Infinity;
      const firstRenameCommit = requests.findIndex(
        (r) => r.login === BOT && r.operationId === "git/create-commit",
      );
      assert.ok(firstDispatch < firstRenameCommit, "stage a was dispatched before the IN_PROGRESS- rename");
    });

    it("dispatches each stage once, and a dependent only after its dependencies were merged", () => {
      const requests = e2e.emulator.requests;
      const dispatches = dispatchesOf(requests);
      const merges = mergesOf(requests).filter((m) => m.status === 201 || m.status === 204);
      assert.deepEqual(dispatches.map((d) => d.stageId).sort(), ["a", "b", "c", "d"]);
      const dependencies: Record<string, string[]> = { a: [], b: ["a"], c: ["a"], d: ["b", "c"] };
      for (const dispatch of dispatches) {
        for (const dependency of dependencies[dispatch.stageId] ?? []) {
          const merged = merges.find((m) => m.head === `loom/pr-1/PLAN-diamond/${dependency}`);
          assert.ok(merged, `stage ${dependency} was merged`);
          assert.ok(
            merged.index < dispatch.index,
            `${dispatch.stageId} started after ${dependency} was merged`,
          );
        }
      }
    });

    it("dispatches a dependent right after its dependency's merge, before any check-run or comment write", () => {
      const requests = e2e.emulator.requests;
      const merges = mergesOf(requests).filter((m) => m.status === 201 || m.status === 204);
      const display = new Set([
        "checks/create",
        "checks/update",
        "issues/create-comment",
        "issues/update-comment",
      ]);
      const dependencies: Record<string, string[]> = { b: ["a"], c: ["a"], d: ["b", "c"] };
      for (const dispatch of dispatchesOf(requests).filter((d) => d.stageId in dependencies)) {
        const lastMerge = Math.max(
          ...(dependencies[dispatch.stageId] ?? []).map(
            (dependency) =>
              merges.find((m) => m.head === `loom/pr-1/PLAN-diamond/${dependency}`)?.index ?? Infinity,
          ),
        );
        const between = requests
          .slice(lastMerge + 1, dispatch.index)
          .filter((r) => r.login === BOT && display.has(r.operationId ?? ""));
        assert.deepEqual(
          between.map((r) => r.operationId),
          [],
          `${dispatch.stageId} was dispatched without waiting for display writes`,
        );
      }
    });

    it("writes each check run of the plan at most twice (created, then completed or superseded): stages first, then the overview that links them", () => {
      const writes = new Map<string, number>();
      for (const r of e2e.emulator.requests) {
        if (r.login !== BOT) continue;
        const id =
          r.operationId === "checks/create" && r.status === 201
            ? String((r.body as { name?: string }).name) +
              "@" +
              String((r.body as { head_sha?: string }).head_sha)
            : null;
        if (id !== null) writes.set(id, (writes.get(id) ?? 0) + 1);
      }
      const planRuns = e2e.emulator.state.checkRuns.filter((run) => run.name === "loom: PLAN-diamond");
      for (const run of planRuns) {
        const updates = e2e.emulator.requests.filter(
          (r) =>
            r.login === BOT && r.operationId === "checks/update" && r.path.endsWith(`/check-runs/${run.id}`),
        );
        assert.ok(
          updates.length <= 1,
          `the plan's check run on ${run.headSha.slice(0, 7)} was updated ${updates.length} times`,
        );
      }
      assert.ok(
        [...writes.values()].every((n) => n === 1),
        "one create a check run and head",
      );
      // On each head, the stages' check runs are created before the plan's, which links them.
      const creates = e2e.emulator.requests.flatMap((r, index) =>
        r.login === BOT && r.operationId === "checks/create" && r.status === 201
          ? [{ index, ...(r.body as { name: string; head_sha: string }) }]
          : [],
      );
      for (const plan of creates.filter((c) => c.name === "loom: PLAN-diamond")) {
        const later = creates.filter(
          (c) => c.head_sha === plan.head_sha && c.name !== plan.name && c.index > plan.index,
        );
        assert.deepEqual(
          later.map((c) => c.name),
          [],
          `stage check runs created on ${plan.head_sha.slice(0, 7)} after the plan's`,
        );
      }
    });

    it("shows the whole plan done in the sticky status comment, each stage linked to its check run", async () => {
      const comment = e2e.statusComment(pull);
      assert.ok(comment, "loom posted a status comment");
      assert.match(comment.body, /\*\*4\/4 merged\*\*/);
      const runs = await e2e.checkRuns(pull);
      for (const stage of ["a", "b", "c", "d"]) {
        const id = runs.find((r) => r.name === `loom: ${stage}`)?.id;
        const link = new RegExp(`^\\| \\[\`${stage}\`\\]\\(\\S+/acme/widgets/runs/${id}\\) \\|`);
        const row = comment.body.split("\n").find((line) => link.test(line));
        assert.match(row ?? "", /✅ completed, merged/, `the row of ${stage}:\n${comment.body}`);
      }
      assert.match(comment.body, /class s0,s1,s2,s3 merged/, "the graph colours every stage merged");
    });

    it("shows Claude Code's own tokens, turns and cost on each stage's check run and the plan's total on the pull request", async () => {
      const runs = await e2e.checkRuns(pull);
      let sum = 0;
      for (const stage of ["a", "b", "c", "d"]) {
        const summary = runs.find((r) => r.name === `loom: ${stage}`)?.output.summary ?? "";
        const cost = /\*\*Cost:\*\* \$([0-9.]+) · ([0-9.]+k?) tokens · ([0-9]+) turns?/.exec(summary);
        assert.ok(cost, `stage ${stage} shows its cost:\n${summary}`);
        assert.ok(Number(cost[3]) > 0, "the session's turns");
        assert.notEqual(cost[2], "0", "the scripted model reports tokens on every reply");
        // The model Claude Code named in its init line, on the session's row of the cost table.
        assert.match(summary, /\| 1 \| stage \| `claude-[^`|]+` \| \d+ \|/, `stage ${stage} names its model`);
        assert.match(summary, /### Checks \(attempt 1: \d+ passed, 0 failed\)/);
        assert.match(
          summary,
          /\| ✅ \| acceptance \| (grep -q alpha a\.txt|cat a\.txt b\.txt c\.txt d\.txt) \| 0 \|/,
        );
        sum += Number(cost[1]);
      }
      const plan = runs.find((r) => r.name === "loom: PLAN-diamond")?.output.summary ?? "";
      const comment = e2e.statusComment(pull)?.body ?? "";
      for (const body of [plan, comment]) {
        const spent = /\*\*Spent:\*\* \$([0-9.]+)/.exec(body);
        assert.ok(spent, `the plan's total:\n${body}`);
        assert.ok(Math.abs(Number(spent[1]) - sum) < 0.011, `the total ${spent[1]} is the stages' ${sum}`);
      }
    });

    it("took every stage's outcome from its run's loom result check run: the App downloaded no loom-result, and loom-publish only as the fallback", () => {
      const { requests, state } = e2e.emulator;
      const reported = state.checkRuns.filter(
        (r) => r.name === "loom result" && r.app === "github-actions[bot]",
      );
      assert.deepEqual(
        reported
          .map(
            (r) => (JSON.parse(r.output.text ?? "{}") as { result?: { stage_id?: string } }).result?.stage_id,
          )
          .sort(),
        ["a", "b", "c", "d"],
      );
      // A run still going when a reconcile falls due has its heartbeat read (an artifact list and
      // the newest loom-heartbeat-<n>): timing, not the outcome. Its outcome would be loom-publish
      // or loom-result. The `workflow_run` completion and the result check run are separate
      // deliveries, handled in no promised order: on a slow machine the App handles a run's
      // completion first now and then and reads that run's loom-publish once (the designed
      // fallback; seen in session 19's fresh-clone runs). Never loom-result, never one twice.
      const names = new Map(e2e.emulator.state.artifacts.map((a) => [a.id, a.name]));
      const outcomeReads = requests
        .filter((r) => r.login === BOT && r.operationId === "actions/download-artifact")
        .map((r) => Number(/\/artifacts\/(\d+)\//.exec(r.path)?.[1]))
        .filter((id) => !(names.get(id) ?? "").startsWith("loom-heartbeat"));
      assert.deepEqual(
        outcomeReads.filter((id) => names.get(id) !== "loom-publish"),
        [],
        "the App read no loom-result: the carried result is in loom-publish",
      );
      assert.equal(new Set(outcomeReads).size, outcomeReads.length, "no loom-publish read twice");
      assert.ok(
        outcomeReads.length < reported.length,
        `loom-publish read for ${outcomeReads.length} of ${reported.length} runs`,
      );
    });

    it("hands each run's outcome, turns and cost to the calling job as the stage workflow's outputs", () => {
      assert.equal(callerOutputs.length, 4);
      for (const outputs of callerOutputs) {
        assert.deepEqual(Object.keys(outputs).sort(), ["cost-usd", "outcome", "turns"]);
        assert.equal(outputs["outcome"], "completed");
        assert.ok(Number(outputs["turns"]) > 0 && Number(outputs["cost-usd"]) > 0, JSON.stringify(outputs));
      }
    });

    it("ran each stage's two jobs of the called workflow on a GitHub-hosted runner (the caller's default runs-on), as the jobs API shows", async () => {
      const octokit = createClient(e2e.emulator);
      for (const run of e2e.emulator.state.runs) {
        const { data } = await octokit.rest.actions.listJobsForWorkflowRun({
          owner: OWNER,
          repo: REPO,
          run_id: run.id,
        });
        assert.deepEqual(
          data.jobs.map((job) => [job.name, job.conclusion, job.labels, job.runner_group_name]),
          [
            ["stage / run", "success", ["ubuntu-latest"], "GitHub Actions"],
            ["stage / publish", "success", ["ubuntu-latest"], "GitHub Actions"],
          ],
          `run ${run.id}`,
        );
      }
    });

    it("made only requests GitHub's OpenAPI description allows, and uploaded artifacts cleanly", () => {
      e2e.emulator.assertNoViolations();
      assert.deepEqual(e2e.emulator.runnerErrors, []);
    });
  },
);
