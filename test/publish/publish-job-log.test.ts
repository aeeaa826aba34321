import { after, afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { PublishInputs, runPublish, type PublishDeps } from "../../action/src/publish/run-publish.ts";
import { RecordedLearning } from "../../src/knowledge/learning.ts";
import { learningFilePath, learningId, renderLearningFile } from "../../src/knowledge/learning-file.ts";
import { BUNDLE_FILE, PublishResult } from "../../src/artifacts/publish-result.ts";
import { BRANCH, PLAN_ID, PLAN_PATH, PublishFixture, STAGE_ID, git, publishIn } from "./git-fixture.ts";

// What the publish job writes to its log and uploads, which is what a person reads in the
// workflow run: each refusal, what was pushed, and why learnings were or were not recorded.

const inputs: PublishInputs = { plan_path: PLAN_PATH, plan_id: PLAN_ID, stage_id: STAGE_ID, branch: BRANCH };
const SECRET = "s3cr3t-job-token-value";

const scratch = mkdtempSync(join(tmpdir(), "loom-publish-log-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The job's port with no artifact store behind it: `loom-bundle` is missing (rejected with
 * `bundleError`), `loom-result` holds `result` when given.
 */
function fakeDeps(
  bundleError: unknown,
  result?: unknown,
): {
  deps: PublishDeps;
  logs: string[];
  uploads: { name: string; files: string[] }[];
} {
  const logs: string[] = [];
  const uploads: { name: string; files: string[] }[] = [];
  const deps: PublishDeps = {
    downloadArtifact: (name, directory) => {
      if (name === "loom-result" && result !== undefined) {
        writeFileSync(join(directory, "loom-result.json"), JSON.stringify(result));
        return Promise.resolve();
      }
      // A rejection with a non-Error value, as a broken artifact client could answer.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(
        name === "loom-bundle" ? bundleError : new Error(`no artifact ${name} (${SECRET})`),
      );
    },
    uploadArtifact: (name, files) => {
      uploads.push({ name, files });
      return Promise.resolve();
    },
    log: (message) => {
      logs.push(message);
    },
  };
  return { deps, logs, uploads };
}

let count = 0;
function newTempDir(): string {
  count += 1;
  const dir = join(scratch, `job-${count}`);
  mkdirSync(dir);
  return dir;
}

const stageResult = (change: Record<string, unknown> = {}): Record<string, unknown> => ({
  version: 1,
  plan_id: PLAN_ID,
  stage_id: STAGE_ID,
  attempt: 1,
  kind: "stage",
  outcome: "completed",
  reason: "done",
  checks: [],
  commits: [],
  head_sha: "1".repeat(40),
  turns: 1,
  tokens: { input: 0, output: 0, cache_read: 0, cache_creation: 0 },
  cost_usd: 0,
  duration_ms: 1,
  context_percent: 1,
  deviations: [],
  permission_denials: [],
  ...change,
});

describe("publish job log: refusals and their text", () => {
  it("logs each refusal and that nothing was pushed, and uploads the result alone", async () => {
    const { deps, logs, uploads } = fakeDeps("the artifact service answered 503");
    const tempDir = newTempDir();
    const result = await runPublish({ workspace: scratch, tempDir, inputs, knownSecrets: [SECRET], deps });
    const detail = "the loom-bundle artifact could not be read: the artifact service answered 503";
    assert.deepEqual(result.refusals, [{ rule: "bundle-invalid", detail }]);
    assert.deepEqual(logs, [
      "no loom-result to read learnings from (no artifact loom-result ([REDACTED]))",
      `refused (bundle-invalid): ${detail}`,
      `nothing pushed to ${BRANCH}`,
    ]);
    assert.deepEqual(uploads, [
      {
        name: "loom-publish",
        files: [join(tempDir, "loom-publish", "loom-publish.json")],
      },
    ]);
    const uploaded = readFileSync(join(tempDir, "loom-publish", "loom-publish.json"), "utf8");
    assert.deepEqual(PublishResult.parse(JSON.parse(uploaded)), result);
    assert.ok(uploaded.endsWith("}\n") && uploaded.includes('\n  "ok": false'), "pretty-printed JSON");
  });

  it("keeps the job's secrets out of refusals and the log, and bounds a refusal's text", async () => {
    const { deps, logs } = fakeDeps(new Error("unused"));
    const branch = `loom/pr-7/${PLAN_ID}/${SECRET}-${"x".repeat(3000)}`;
    const result = await runPublish({
      workspace: scratch,
      tempDir: newTempDir(),
      inputs: { ...inputs, branch },
      knownSecrets: [SECRET],
      deps,
    });
    const detail = result.refusals[0]?.detail ?? "";
    assert.equal(result.refusals[0]?.rule, "branch-name");
    assert.equal(detail.length, 2000);
    assert.ok(detail.includes("[REDACTED]") && !detail.includes(SECRET));
    assert.ok(logs.includes(`refused (branch-name): ${detail}`), logs.join("\n"));
    assert.ok(!logs.join("\n").includes(SECRET), logs.join("\n"));
    assert.ok(logs.at(-1)?.startsWith("nothing pushed to loom/pr-7/"), logs.join("\n"));
  });

  it("keeps the job's secrets out of a refused file's name, in the log and in loom-publish", async () => {
    const f = new PublishFixture();
    try {
      f.commit("Hooks", { [`.claude/${SECRET}.json`]: "{}\n" });
      f.bundle();
      const result = await publishIn(f, inputs, [SECRET]);
      assert.equal(result.refusals[0]?.path, ".claude/[REDACTED].json");
      assert.ok(!f.logs.join("\n").includes(SECRET), f.logs.join("\n"));
      assert.ok(
        f.logs.some((line) => line.startsWith("refused (agent-config-change) .claude/[REDACTED].json")),
      );
    } finally {
      f.cleanup();
    }
  });

  it("logs a refusal's file", async () => {
    const f = new PublishFixture();
    try {
      f.commit("Hooks", { ".claude/settings.json": "{}\n" });
      f.bundle();
      const result = await publishIn(f, inputs);
      assert.ok(
        f.logs.includes(`refused (agent-config-change) .claude/settings.json: ${result.refusals[0]?.detail}`),
      );
    } finally {
      f.cleanup();
    }
  });
});

describe("publish job log: the run's loom-result", () => {
  for (const [name, result, line] of [
    ["not a result", { version: 2 }, "loom-result is not a valid result: no learnings to commit"],
    [
      "another plan's result",
      stageResult({ plan_id: "PLAN-other" }),
      "loom-result is for another stage: no learnings to commit",
    ],
    [
      "another stage's result",
      stageResult({ stage_id: "other" }),
      "loom-result is for another stage: no learnings to commit",
    ],
  ] as const) {
    it(`says it commits no learnings from ${name}, and still carries the file`, async () => {
      const { deps, logs, uploads } = fakeDeps(new Error("gone"), result);
      const tempDir = newTempDir();
      await runPublish({ workspace: scratch, tempDir, inputs, knownSecrets: [], deps });
      assert.equal(logs[0], line);
      assert.deepEqual(
        uploads[0]?.files.map((file) => basename(file)),
        ["loom-publish.json", "loom-result.json"],
      );
      assert.deepEqual(
        JSON.parse(readFileSync(join(tempDir, "loom-publish", "loom-result.json"), "utf8")),
        result,
      );
    });
  }

  it("says why there was no loom-result to read, whatever the download threw", async () => {
    const { deps, logs } = fakeDeps(new Error("gone"));
    deps.downloadArtifact = (name) =>
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      Promise.reject(name === "loom-result" ? `${SECRET} ${"y".repeat(400)}` : new Error("gone"));
    await runPublish({ workspace: scratch, tempDir: newTempDir(), inputs, knownSecrets: [SECRET], deps });
    assert.equal(
      logs[0],
      `no loom-result to read learnings from (${`[REDACTED] ${"y".repeat(400)}`.slice(0, 300)})`,
    );
  });
});

describe("publish job log: a clean bundle with no learnings to add", () => {
  for (const [name, change, line] of [
    [
      "another stage's result",
      { stage_id: "other" },
      "loom-result is for another stage: no learnings to commit",
    ],
    ["an invalid result", { version: 2 }, "loom-result is not a valid result: no learnings to commit"],
    ["no result", undefined, "no loom-result to read learnings from (no artifact loom-result)"],
  ] as const) {
    it(`pushes the session's work and logs only why none were added (${name})`, async () => {
      const f = new PublishFixture();
      try {
        const work = f.commit("Work", { "src/a.ts": "1\n" });
        f.bundle();
        if (change !== undefined) f.result([], change);
        await publishIn(f, inputs);
        assert.deepEqual(f.logs, [line, `pushed ${work} to ${BRANCH}`]);
      } finally {
        f.cleanup();
      }
    });
  }
});

describe("publish job log: the learnings the session was given", () => {
  const earlier = RecordedLearning.parse({
    category: "pattern",
    summary: "Database pool size comes from DB_POOL_MAX",
    detail:
      "src/db/pool.ts reads DB_POOL_MAX at start; tests set it to 1 so parallel tests do not exhaust connections.",
    tags: ["db"],
    scope: "src/db/pool.ts",
    criteria_met: ["specific", "verified"],
    plan_id: PLAN_ID,
    stage_id: "db",
    attempt: 1,
    recorded_at: "2026-11-01T00:00:00.000Z",
  });
  const earlierPath = learningFilePath(earlier);
  const retiredPath = earlierPath.replace("/learnings/", "/learnings/retired/");
  let fixture: PublishFixture | undefined;
  afterEach(() => fixture?.cleanup());

  it("records them with the session's outcome, retires one whose stages keep failing, and logs both", async () => {
    const f = (fixture = new PublishFixture({
      [earlierPath]: renderLearningFile(earlier),
      ".github/loom.yml": "learnings:\n  retire_after_failures: 1\n",
    }));
    const work = f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    const given = [{ id: learningId(earlier), summary: earlier.summary }];
    f.result([], { outcome: "completed-with-failures", attempt: 2, kind: "stage", learnings_given: given });
    const before = Date.now();
    const result = await publishIn(f, inputs);
    const head = f.originRef(BRANCH);
    assert.equal(result.pushed_sha, head);
    assert.equal(git(f.origin, "rev-parse", `${head}^`), work);
    const changed = git(f.origin, "diff-tree", "-r", "--no-commit-id", "--name-status", "--no-renames", head);
    const usePath = /A\t(doc\/loom\/knowledge\/learnings\/uses\/\S+)/.exec(changed)?.[1] ?? "";
    assert.match(usePath, new RegExp(`/\\d{14}-pr-7-${PLAN_ID}-${STAGE_ID}-2-stage\\.json$`));
    assert.deepEqual(
      changed.split("\n").sort(),
      [`A\t${retiredPath}`, `A\t${usePath}`, `D\t${earlierPath}`].sort(),
    );
    const use = JSON.parse(git(f.origin, "show", `${head}:${usePath}`)) as Record<string, unknown>;
    const recordedAt = Date.parse(String(use.recorded_at));
    assert.ok(recordedAt >= before - 1000 && recordedAt <= Date.now(), String(use.recorded_at));
    assert.deepEqual(
      { ...use, recorded_at: "" },
      {
        version: 1,
        plan_run: `pr-7/${PLAN_ID}`,
        plan_id: PLAN_ID,
        stage_id: STAGE_ID,
        attempt: 2,
        kind: "stage",
        outcome: "completed-with-failures",
        recorded_at: "",
        given: [learningId(earlier)],
      },
    );
    const reason = "the last 1 stages it was given to failed their checks";
    assert.deepEqual(f.logs.slice(0, 3), [
      `committed 0 learning(s) in ${head.slice(0, 12)}: `,
      `recorded the learnings the session was given: ${usePath}`,
      `retired ${earlierPath} (${reason}): now ${retiredPath}`,
    ]);
    assert.equal(f.logs.at(-1), `pushed ${head} to ${BRANCH}`);
  });

  it("records them when the result holds no learnings of the session's own", async () => {
    const f = (fixture = new PublishFixture());
    f.bundle();
    f.result([], {
      learnings: undefined,
      learnings_given: [{ id: learningId(earlier), summary: earlier.summary }],
    });
    await publishIn(f, inputs);
    assert.match(
      f.logs[1] ?? "",
      /^recorded the learnings the session was given: doc\/loom\/knowledge\/learnings\/uses\//,
    );
  });

  it("retires with the defaults when learnings: of .github/loom.yml is wrong, and says so", async () => {
    const f = (fixture = new PublishFixture({
      ".github/loom.yml": "learnings:\n  retire_after_plans: -1\n",
    }));
    f.bundle();
    f.result([], { learnings_given: [{ id: learningId(earlier), summary: earlier.summary }] });
    await publishIn(f, inputs);
    assert.match(
      f.logs[0] ?? "",
      /^learnings retire with the defaults: \.github\/loom\.yml learnings\.retire_after_plans: /,
    );
  });
});

describe("publish job: broken infrastructure throws instead of passing for a missing file", () => {
  it("fails when the run's loom-result cannot be carried (not a file)", async () => {
    const { deps, logs } = fakeDeps(new Error("gone"));
    deps.downloadArtifact = (name, directory) =>
      name === "loom-result"
        ? Promise.resolve(mkdirSync(join(directory, "loom-result.json")))
        : Promise.reject(new Error("gone"));
    await assert.rejects(
      runPublish({ workspace: scratch, tempDir: newTempDir(), inputs, knownSecrets: [], deps }),
      { code: "EISDIR" },
    );
    assert.match(logs[0] ?? "", /^no loom-result to read learnings from \(EISDIR/);
  });

  it("fails when the bundle cannot be read (not a file)", async () => {
    const f = new PublishFixture();
    try {
      f.commit("Work", { "src/a.ts": "1\n" });
      f.bundle();
      rmSync(join(f.artifactDir, BUNDLE_FILE));
      mkdirSync(join(f.artifactDir, BUNDLE_FILE));
      await assert.rejects(
        runPublish({ workspace: f.workspace, tempDir: f.tempDir, inputs, knownSecrets: [], deps: f.deps }),
        { code: "EISDIR" },
      );
      assert.equal(f.uploads.length, 0);
    } finally {
      f.cleanup();
    }
  });
});

describe("publish job inputs", () => {
  it("takes the four names and the optional merge point, none of them empty", () => {
    const long = `${"x".repeat(300)}`;
    const read = { plan_path: long, plan_id: long, stage_id: long, branch: long };
    assert.deepEqual(PublishInputs.parse({ ...read, other: "dropped" }), read);
    assert.deepEqual(PublishInputs.parse({ ...read, base: "main" }), { ...read, base: "main" });
    for (const name of ["plan_path", "plan_id", "stage_id", "branch"]) {
      assert.equal(PublishInputs.safeParse({ ...read, [name]: "" }).success, false, name);
    }
  });
});
