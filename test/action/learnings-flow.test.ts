import { test } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
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
): Promise<void> {
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
  assert.equal(result.outcome, "completed", result.reason);
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
}

test("a learning recorded by one stage is published, merged with the stage, and injected into the next stage's prompt", async (t) => {
  const root = await mkdtemp(path.join(tmpdir(), "loom-learnings-flow-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  const origin = path.join(root, "origin.git");
  const seed = path.join(root, "seed");
  git(root, "init", "-q", "--bare", "-b", "main", origin);
  git(root, "clone", "-q", origin, seed);
  await mkdir(path.join(seed, "doc/plans"), { recursive: true });
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
});
