import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { StageResult } from "../../src/artifacts/stage-result.ts";
import { RecordedLearning } from "../../src/knowledge/learning.ts";
import { learningFilePath, learningId, renderLearningFile } from "../../src/knowledge/learning-file.ts";
import { LearningUse, renderLearningUse } from "../../src/knowledge/learning-use.ts";
import { runPublish } from "../../action/src/publish/run-publish.ts";
import { runStage } from "../../action/src/run-stage.ts";
import type { RunSessionOptions } from "../../action/src/session/run-session.ts";
import {
  deps,
  finishedSession,
  git,
  inputs,
  planText,
  PLAN_PATH,
  type Fixture,
} from "./run-stage-fixture.ts";

const STAGES = `
- id: api
  name: Build the API
  description: Add the api routes
  files:
    - src/api/**
- id: ui
  name: Build the UI
  description: Forms that call the api client
  dependencies: [api]
  files:
    - src/ui/**
`;

const learned = {
  category: "pattern",
  summary: "Every api route must be imported from src/api/index.ts",
  detail:
    "Routes register themselves when imported; a route file that src/api/index.ts does not import never answers, and its tests still pass in isolation.",
  tags: ["api", "routing"],
  scope: "src/api/**",
  criteria_met: ["specific", "verified"],
};

/** One stage job: the run job in a fresh clone of the stage branch, then the publish job in another. */
async function runStageJob(
  root: string,
  origin: string,
  stageId: string,
  session: (o: RunSessionOptions) => Promise<void>,
  outcome: StageResult["outcome"] = "completed",
): Promise<StageResult> {
  const branch = `loom/PLAN-demo/${stageId}`;
  const dir = path.join(root, stageId);
  const f: Fixture = {
    root: dir,
    workspace: path.join(dir, "run"),
    tempDir: path.join(dir, "run-tmp"),
    uploads: new Map(),
    summaries: [],
  };
  git(root, "clone", "-q", "--branch", branch, origin, f.workspace);
  const { result } = await runStage(
    inputs({ stage_id: stageId, branch }),
    deps(f, async (o) => {
      await session(o);
      return finishedSession(o);
    }),
  );
  assert.equal(result.outcome, outcome, result.reason);
  const publishDir = path.join(dir, "publish");
  git(root, "clone", "-q", "--branch", branch, origin, publishDir);
  const published = await runPublish({
    workspace: publishDir,
    tempDir: path.join(dir, "publish-tmp"),
    inputs: { plan_path: PLAN_PATH, plan_id: "PLAN-demo", stage_id: stageId, branch },
    knownSecrets: [],
    deps: {
      downloadArtifact: async (name, directory) => {
        const from = f.uploads.get(name);
        if (from === undefined) throw new Error(`no artifact ${name}`);
        await cp(from, directory, { recursive: true });
      },
      uploadArtifact: () => Promise.resolve(),
      log: () => undefined,
    },
  });
  assert.deepEqual(published.refusals, []);
  return result;
}

/** A bare origin on main and a clone of it (`seed`) with `doc/plans/`, removed after the test. */
async function makeOrigin(
  t: TestContext,
  prefix: string,
): Promise<{ root: string; origin: string; seed: string }> {
  const root = await mkdtemp(path.join(tmpdir(), prefix));
  t.after(() => rm(root, { recursive: true, force: true }));
  const origin = path.join(root, "origin.git");
  const seed = path.join(root, "seed");
  git(root, "init", "-q", "--bare", "-b", "main", origin);
  git(root, "clone", "-q", origin, seed);
  await mkdir(path.join(seed, "doc/plans"), { recursive: true });
  return { root, origin, seed };
}

test("a learning recorded by one stage is published, merged with the stage, and injected into the next stage's prompt", async (t) => {
  const { root, origin, seed } = await makeOrigin(t, "loom-learnings-flow-");
  await writeFile(path.join(seed, PLAN_PATH), planText(STAGES));
  git(seed, "add", ".");
  git(seed, "commit", "-q", "-m", "plan");
  git(seed, "push", "-q", "origin", "HEAD:refs/heads/main", "HEAD:refs/heads/loom/PLAN-demo/api");

  await runStageJob(root, origin, "api", async (o) => {
    await mkdir(path.join(o.cwd, "src/api"), { recursive: true });
    await writeFile(path.join(o.cwd, "src/api/index.ts"), "export {};\n");
    await writeFile(o.learningsFile ?? "", `${JSON.stringify(learned)}\n`);
  });

  // The app merges the finished stage into the plan's branch, then branches the next stage from it.
  git(seed, "pull", "-q", "--no-rebase", "origin", "loom/PLAN-demo/api");
  git(seed, "push", "-q", "origin", "HEAD:refs/heads/main", "HEAD:refs/heads/loom/PLAN-demo/ui");
  const files = await readdir(path.join(seed, "doc/loom/knowledge/learnings"));
  assert.equal(files.length, 1);
  assert.equal(git(seed, "log", "-1", "--format=%an", "--", "doc/loom/knowledge/learnings"), "loom-publish");

  let prompt = "";
  await runStageJob(root, origin, "ui", async (o) => {
    prompt = o.prompt;
    await mkdir(path.join(o.cwd, "src/ui"), { recursive: true });
    await writeFile(path.join(o.cwd, "src/ui/form.ts"), "export {};\n");
  });
  assert.match(
    prompt,
    /## Learnings From Earlier Sessions\n\n<learnings>\n- \*\*pattern\*\*: Every api route must be imported from src\/api\/index\.ts \(scope: src\/api\/\*\*; tags: api, routing\)/,
  );
  // The publish job recorded, on the ui branch, that the ui session was given the api learning and passed.
  git(seed, "fetch", "-q", "origin", "loom/PLAN-demo/ui");
  const uses = git(
    seed,
    "ls-tree",
    "-r",
    "--name-only",
    "FETCH_HEAD",
    "--",
    "doc/loom/knowledge/learnings/uses/",
  )
    .split("\n")
    .filter((line) => line !== "");
  assert.equal(uses.length, 1, "one use record: the ui session's");
  const record = LearningUse.parse(JSON.parse(git(seed, "show", `FETCH_HEAD:${uses[0] ?? ""}`)));
  assert.deepEqual(
    [record.stage_id, record.outcome, record.given],
    ["ui", "completed", [files[0]?.replace(/\.md$/, "")]],
  );
});

/** A learning from an earlier plan that keeps going with failed stages. */
const failing = RecordedLearning.parse({
  category: "convention",
  summary: "Api handlers must throw on invalid input",
  detail:
    "Throwing from a handler lets the framework answer 400; the tests of this repository expect a thrown ValidationError.",
  tags: ["api"],
  scope: "src/api/**",
  criteria_met: ["specific"],
  plan_id: "PLAN-old",
  stage_id: "old-api",
  attempt: 1,
  recorded_at: "2026-10-01T00:00:00.000Z",
});

test("a learning given to stages that failed three times in a row is moved to learnings/retired/ with the reason, and later prompts no longer get it", async (t) => {
  const { root, origin, seed } = await makeOrigin(t, "loom-learnings-retire-");
  await mkdir(path.join(seed, "doc/loom/knowledge/learnings/uses"), { recursive: true });
  await writeFile(
    path.join(seed, PLAN_PATH),
    planText(
      STAGES.replace(
        "files:\n    - src/api/**",
        'files:\n    - src/api/**\n  acceptance: ["test -f src/api/missing.ts"]',
      ),
    ),
  );
  const learningPath = learningFilePath(failing);
  await writeFile(path.join(seed, learningPath), renderLearningFile(failing));
  // Two earlier stages of another plan were given it and failed their checks.
  for (const minute of [1, 2]) {
    const record = LearningUse.parse({
      version: 1,
      plan_run: "pr-3/PLAN-old",
      plan_id: "PLAN-old",
      stage_id: "api-v2",
      attempt: minute,
      kind: minute === 1 ? "stage" : "recovery",
      outcome: "completed-with-failures",
      recorded_at: `2026-10-02T00:0${minute}:00.000Z`,
      given: [learningId(failing)],
    });
    await writeFile(
      path.join(seed, `doc/loom/knowledge/learnings/uses/2026100200000${minute}-old.json`),
      renderLearningUse(record),
    );
  }
  git(seed, "add", ".");
  git(seed, "commit", "-q", "-m", "plan, a learning and its record");
  git(seed, "push", "-q", "origin", "HEAD:refs/heads/main", "HEAD:refs/heads/loom/PLAN-demo/api");

  let prompt = "";
  const result = await runStageJob(
    root,
    origin,
    "api",
    async (o) => {
      prompt = o.prompt;
      await mkdir(path.join(o.cwd, "src/api"), { recursive: true });
      await writeFile(path.join(o.cwd, "src/api/index.ts"), "export {};\n");
    },
    "completed-with-failures",
  );
  assert.match(prompt, /Api handlers must throw on invalid input/, "the session was given it");
  assert.deepEqual(result.learnings_given, [{ id: learningId(failing), summary: failing.summary }]);

  git(seed, "fetch", "-q", "origin", "loom/PLAN-demo/api");
  const retiredPath = learningPath.replace("/learnings/", "/learnings/retired/");
  assert.equal(
    git(seed, "ls-tree", "--name-only", "FETCH_HEAD", "--", learningPath),
    "",
    "no longer where loom reads learnings",
  );
  const retired = git(seed, "show", `FETCH_HEAD:${retiredPath}`);
  assert.ok(retired.startsWith(renderLearningFile(failing)), "kept as it was");
  assert.match(retired, /\*\*Retired by loom:\*\* the last 3 stages it was given to failed their checks\./);
  assert.match(
    git(seed, "log", "-1", "--format=%an%n%B", "FETCH_HEAD"),
    /^loom-publish\nloom: learnings of stage api: 1 given noted \(completed-with-failures\), 1 retired\n[\s\S]*- retired [^:]+: the last 3 stages it was given to failed their checks/,
  );

  // The ui stage starts from the api branch (as after a retry passed and merged): no learning for it.
  git(seed, "pull", "-q", "--no-rebase", "origin", "loom/PLAN-demo/api");
  git(seed, "push", "-q", "origin", "HEAD:refs/heads/loom/PLAN-demo/ui");
  let next = "";
  const ui = await runStageJob(root, origin, "ui", async (o) => {
    next = o.prompt;
    await mkdir(path.join(o.cwd, "src/ui"), { recursive: true });
    await writeFile(path.join(o.cwd, "src/ui/form.ts"), "export {};\n");
  });
  assert.doesNotMatch(next, /Api handlers must throw/);
  assert.equal(ui.learnings_given, undefined);
});
