import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { reportPlanErrors } from "../../app/engine/report-plan-errors.ts";
import { createApiCalls } from "../../app/github/effect-context.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeEngineDeps } from "./engine-fixture.ts";
import { openTempStore } from "./loom-harness.ts";

/*
 * An invalid plan as its author sees it: a failing `loom: <plan-id>` check run on the pushed
 * commit, its summary listing each error with its line (and the stage it is in), an annotation at
 * each line, warnings as warnings; a plan already reported as invalid on that commit is not
 * reported twice; and a log line that names the plan and how many errors it has.
 */

const NOW = Date.UTC(2026, 10, 27, 20, 0, 0);
const SHA = "c".repeat(40);
const PATH = "doc/plans/PLAN-auth.md";
const REPO = { owner: "acme", repo: "widgets", installationId: 4242, defaultBranch: "trunk" };
const LIST = `/repos/acme/widgets/commits/${SHA}/check-runs`;

type Line = { msg: string; planPath?: string; errors?: number };
type CheckRunBody = {
  name: string;
  head_sha: string;
  external_id: string;
  status: string;
  conclusion: string;
  completed_at: string;
  output: { title: string; summary: string; annotations: Record<string, unknown>[] };
};

const cleanups: (() => Promise<void> | void)[] = [];
let gh: GitHubMock | undefined;
afterEach(async () => {
  gh?.cleanup();
  gh = undefined;
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

async function setUp() {
  const { store, close } = await openTempStore();
  cleanups.push(close);
  gh = mockGitHub();
  const lines: Line[] = [];
  const { deps } = makeEngineDeps(store, NOW, lines);
  deps.calls = createApiCalls();
  const octokit = await deps.getOctokit(REPO.installationId);
  return { deps, octokit, lines, gh };
}

test("an invalid plan fails its check run on the pushed commit, each error at its line, warnings as warnings", async () => {
  const { deps, octokit, lines, gh } = await setUp();
  gh.api.get(LIST).query(true).reply(200, { total_count: 0, check_runs: [] });
  gh.api.post("/repos/acme/widgets/check-runs").reply(201, { id: 77 });
  await reportPlanErrors(
    deps,
    octokit,
    REPO,
    { head: { sha: SHA } },
    PATH,
    [
      { message: "dependencies: unknown stage `db`", line: 12, column: 7, stage: "api" },
      { message: "stages: must not be empty", line: 3, column: 0 },
    ],
    [{ message: "acceptance: no command", line: 20, column: 5 }],
  );
  const [created] = gh.find("POST", "/repos/acme/widgets/check-runs").map((r) => r.body as CheckRunBody);
  assert.ok(created !== undefined);
  assert.deepEqual(
    [created.name, created.head_sha, created.status, created.conclusion, created.completed_at],
    ["loom: PLAN-auth", SHA, "completed", "failure", new Date(NOW).toISOString()],
  );
  assert.equal(created.output.title, "Invalid plan");
  assert.equal(
    created.output.summary,
    [
      "`doc/plans/PLAN-auth.md` is not a valid loom plan: nothing runs until it is fixed.",
      "",
      "- line 12:7 (stage `api`): dependencies: unknown stage `db`",
      "- line 3:0: stages: must not be empty",
      "",
      "Warnings:",
      "- line 20: acceptance: no command",
    ].join("\n"),
  );
  assert.deepEqual(
    created.output.annotations.map((a) => [a["path"], a["start_line"], a["annotation_level"], a["title"]]),
    [
      [PATH, 12, "failure", "stage api"],
      [PATH, 3, "failure", "plan"],
      [PATH, 20, "warning", "plan"],
    ],
  );
  assert.deepEqual(
    lines.map((line) => [line.msg, line.planPath, line.errors]),
    [["invalid plan reported on its check run", PATH, 2]],
  );
  assert.equal(deps.calls?.by["publishPlanErrors"], 2, "the look-up and the check run, counted");
  gh.done();
});

test("a plan already reported invalid on this commit is not reported again", async () => {
  const { deps, octokit, lines, gh } = await setUp();
  gh.api
    .get(LIST)
    .query(true)
    .reply(200, {
      total_count: 1,
      check_runs: [
        {
          id: 5,
          name: "loom: PLAN-auth",
          external_id: `loom:*@${PATH}`,
          status: "completed",
          conclusion: "failure",
          output: { title: "Invalid plan" },
        },
      ],
    });
  await reportPlanErrors(
    deps,
    octokit,
    REPO,
    { head: { sha: SHA } },
    PATH,
    [{ message: "x", line: 1, column: 1 }],
    [],
  );
  assert.deepEqual(
    gh.requests.map((r) => r.method),
    ["GET"],
    "no second check run",
  );
  assert.deepEqual(
    lines.map((line) => line.msg),
    ["invalid plan reported on its check run"],
  );
  gh.done();
});
