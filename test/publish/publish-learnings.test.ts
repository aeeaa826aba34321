import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { commitLearnings } from "../../action/src/publish/commit-learnings.ts";
import { runPublish } from "../../action/src/publish/run-publish.ts";
import { RecordedLearning } from "../../src/knowledge/learning.ts";
import {
  learningFilePath,
  learningId,
  parseLearningFile,
  renderLearningFile,
} from "../../src/knowledge/learning-file.ts";
import type { PublishResult } from "../../src/artifacts/publish-result.ts";
import {
  BRANCH,
  PLAN_ID,
  PLAN_PATH,
  PublishFixture,
  STAGE_ID,
  git,
  planText,
  PUBLISH_INPUTS,
  fakeToken,
} from "./git-fixture.ts";

const inputs = PUBLISH_INPUTS;
const LOG = "doc/loom/knowledge/learnings.md";
const log = "# Learnings\n\nWritten by people before loom.\n";

const learning = (change: Partial<RecordedLearning> = {}): RecordedLearning =>
  RecordedLearning.parse({
    category: "pattern",
    summary: "Routes register themselves in src/api/index.ts",
    detail:
      "Each route module calls register() at import; a new route file must be imported from src/api/index.ts or it never answers.",
    tags: ["api", "routing"],
    scope: "src/api/**",
    criteria_met: ["specific", "verified"],
    plan_id: PLAN_ID,
    stage_id: STAGE_ID,
    attempt: 1,
    recorded_at: "2026-11-22T03:00:00.000Z",
    ...change,
  });
const earlier = learning({
  summary: "Database pool size comes from DB_POOL_MAX",
  detail:
    "src/db/pool.ts reads DB_POOL_MAX at start; tests set it to 1 so parallel tests do not exhaust connections.",
  tags: ["db"],
  scope: "src/db/pool.ts",
  stage_id: "db",
  recorded_at: "2026-11-01T00:00:00.000Z",
});
const token = fakeToken;

let fixture: PublishFixture | undefined;
afterEach(() => fixture?.cleanup());

function setUp(extraPlan = ""): PublishFixture {
  fixture = new PublishFixture({
    [LOG]: log,
    [learningFilePath(earlier)]: renderLearningFile(earlier),
    ...(extraPlan === "" ? {} : { [PLAN_PATH]: planText(extraPlan) }),
  });
  return fixture;
}

/** Stage branches `a` and `b` at `tips`, merged one after the other into a clone of main (as loom merges them). */
function mergeStages(f: PublishFixture, tips: string[]): string {
  const pr = join(f.root, "pr");
  git(f.root, "clone", "-q", "--branch", "main", f.origin, pr);
  git(f.workspace, "push", "-q", "origin", `${tips[0]}:refs/heads/a`, `${tips[1]}:refs/heads/b`);
  git(pr, "fetch", "-q", "origin", "a", "b");
  git(pr, "merge", "-q", "--no-ff", "-m", "merge a", "origin/a");
  git(pr, "merge", "-q", "--no-ff", "-m", "merge b", "origin/b");
  return pr;
}

async function publish(f: PublishFixture): Promise<PublishResult> {
  return runPublish({ workspace: f.workspace, tempDir: f.tempDir, inputs, knownSecrets: [], deps: f.deps });
}

const show = (f: PublishFixture, rev: string, path: string): string =>
  git(f.origin, "show", `${rev}:${path}`);

describe("publish: learnings from loom-result", () => {
  it("are committed after the session's commits as new files, in a commit of their own; nothing existing changes", async () => {
    const f = setUp();
    const before = { log: show(f, "main", LOG), earlier: show(f, "main", learningFilePath(earlier)) };
    const work = f.commit("Add the API", { "src/api/index.ts": "export {};\n" });
    f.bundle();
    const fresh = learning();
    f.result([
      fresh,
      { ...earlier, summary: "Database pool size comes from DB_POOL_MAX!", stage_id: STAGE_ID },
      learning({
        summary: "Registry password for image pushes",
        detail: `Push with ${token()} as the password, always.`,
      }),
    ]);
    const result = await publish(f);
    assert.deepEqual(result.refusals, []);
    const head = f.originRef(BRANCH);
    assert.equal(result.pushed_sha, head);
    assert.equal(git(f.origin, "rev-parse", `${head}^`), work, "one commit on top of the session's work");
    assert.equal(
      git(f.origin, "log", "-1", "--format=%an <%ae>", head),
      "loom-publish <loom-publish@users.noreply.github.com>",
    );
    const path = learningFilePath(fresh);
    assert.equal(git(f.origin, "diff-tree", "-r", "--no-commit-id", "--name-status", head), `A\t${path}`);
    assert.deepEqual(parseLearningFile(show(f, head, path)), [fresh]);
    assert.equal(show(f, head, LOG), before.log, "learnings.md byte-for-byte");
    assert.equal(show(f, head, learningFilePath(earlier)), before.earlier);
    const logs = f.logs.join("\n");
    assert.match(logs, /near-duplicate/);
    assert.match(logs, /token/);
    assert.ok(!logs.includes(token()));
  });

  it("are published even when the session committed nothing", async () => {
    const f = setUp();
    f.bundle();
    f.result([learning()]);
    const result = await publish(f);
    assert.equal(result.ok, true);
    assert.equal(result.pushed_sha, f.originRef(BRANCH));
    assert.equal(git(f.origin, "rev-parse", `${f.originRef(BRANCH)}^`), f.originRef("main"));
  });

  it("are not committed when the session's commits are refused", async () => {
    const f = setUp();
    f.commit("Hooks", { ".claude/settings.json": "{}\n" });
    f.bundle();
    f.result([learning()]);
    const result = await publish(f);
    assert.equal(result.ok, false);
    assert.equal(f.originRef(BRANCH), f.originRef("main"));
  });

  it("for another stage are ignored", async () => {
    const f = setUp();
    f.bundle();
    f.result([learning()], { stage_id: "someone-else" });
    const result = await publish(f);
    assert.equal(result.ok, true);
    assert.equal(result.pushed_sha, undefined);
  });
});

describe("publish: the learnings log is loom's", () => {
  const cases: { name: string; files: Record<string, string | null> }[] = [
    { name: "appending to learnings.md", files: { [LOG]: `${log}- my own lesson\n` } },
    { name: "rewriting learnings.md", files: { [LOG]: "# Learnings\n" } },
    {
      name: "adding a file under learnings/",
      files: { [learningFilePath(learning())]: renderLearningFile(learning()) },
    },
    { name: "deleting a learning", files: { [learningFilePath(earlier)]: null } },
  ];
  for (const { name, files } of cases) {
    it(`refuses a session ${name}`, async () => {
      const f = setUp();
      f.commit("Touch the learnings", files);
      f.bundle();
      const result = await publish(f);
      assert.equal(result.ok, false);
      assert.ok(
        result.refusals.some((r) => r.rule === "knowledge-rewrite" && /learnings log/.test(r.detail)),
        JSON.stringify(result.refusals),
      );
      assert.equal(f.originRef(BRANCH), f.originRef("main"));
    });
  }

  it("lets a stage with allow_knowledge_edits edit it", async () => {
    const f = setUp("allow_knowledge_edits: true");
    f.commit("Distill", { [LOG]: "# Learnings\n\nDistilled.\n" });
    f.bundle();
    assert.deepEqual((await publish(f)).refusals, []);
  });

  it("accepts a merge session bringing in the pull request's learnings, refuses one that alters them", async () => {
    for (const alter of [false, true]) {
      const f = setUp();
      // Another stage's learning reached the pull request branch ("other").
      const other = learning({
        stage_id: "other-stage",
        summary: "Feature flags live in config/flags.json",
        detail:
          "Flags are read once at boot from config/flags.json; flipping one needs a restart of the worker.",
      });
      const added = await commitLearnings({
        cwd: f.workspace,
        parent: git(f.workspace, "rev-parse", "origin/other"),
        learnings: [other],
        origin: { plan_id: PLAN_ID, stage_id: "other-stage" },
        knownSecrets: [],
        tempDir: join(f.root, "commit-tmp"),
      });
      git(f.workspace, "push", "-q", "origin", `${added.sha}:refs/heads/other`);
      f.commit("Stage work", { "src/a.ts": "1\n" });
      git(f.session, "fetch", "-q", "origin", "other");
      git(f.session, "merge", "-q", "--no-ff", "--no-commit", "FETCH_HEAD");
      if (alter) f.write(f.session, { [learningFilePath(other)]: "# rewritten by the session\n" });
      git(f.session, "add", "-A");
      git(f.session, "commit", "-q", "--no-edit");
      f.bundle();
      const result = await publish(f);
      assert.equal(result.ok, !alter, JSON.stringify(result.refusals));
      f.cleanup();
    }
  });
});

describe("learnings of parallel stages", () => {
  it("merge into the pull request branch without conflicts, where two appends to one learnings.md conflict", async () => {
    const f = setUp();
    const base = f.originRef("main");
    const tips: string[] = [];
    for (const stage of ["stage-a", "stage-b"]) {
      const commit = await commitLearnings({
        cwd: f.workspace,
        parent: base,
        learnings: [
          learning({
            stage_id: stage,
            summary: `Stage ${stage} found the cache key format`,
            detail: `The ${stage} cache keys are <tenant>:<id>; a key without the tenant prefix reads another tenant's row.`,
          }),
        ],
        origin: { plan_id: PLAN_ID, stage_id: stage },
        knownSecrets: [],
        tempDir: join(f.root, `tmp-${stage}`),
      });
      assert.ok(commit.sha !== null);
      tips.push(commit.sha);
    }
    const pr = mergeStages(f, tips);
    assert.equal(git(pr, "ls-files", "doc/loom/knowledge/learnings/").split("\n").length, 3);

    // The alternative: both stages append a block to learnings.md.
    git(pr, "checkout", "-q", "-b", "append-a", base);
    f.write(pr, { [LOG]: `${log}\n## a\n` });
    git(pr, "commit", "-q", "-am", "append a");
    git(pr, "checkout", "-q", "-b", "append-b", base);
    f.write(pr, { [LOG]: `${log}\n## b\n` });
    git(pr, "commit", "-q", "-am", "append b");
    assert.throws(() => git(pr, "merge", "-q", "--no-ff", "-m", "merge", "append-a"), "appends conflict");
  });

  it("merge without conflicts when both record their uses and retire the same learning", async () => {
    const f = setUp();
    const base = f.originRef("main");
    const tips: string[] = [];
    for (const [minute, stage] of ["stage-a", "stage-b"].entries()) {
      const commit = await commitLearnings({
        cwd: f.workspace,
        parent: base,
        learnings: [],
        origin: { plan_id: PLAN_ID, stage_id: stage },
        knownSecrets: [],
        tempDir: join(f.root, `tmp-${stage}`),
        use: {
          version: 1,
          plan_run: `pr-1/${PLAN_ID}`,
          plan_id: PLAN_ID,
          stage_id: stage,
          attempt: 1,
          kind: "stage",
          outcome: "completed-with-failures",
          recorded_at: `2026-11-23T00:0${minute}:00.000Z`,
          given: [learningId(earlier)],
        },
        retirePolicy: { retire_after_failures: 1, retire_after_plans: 0 },
      });
      assert.ok(commit.sha !== null);
      assert.deepEqual(
        commit.retired.map((r) => r.to),
        [learningFilePath(earlier).replace("/learnings/", "/learnings/retired/")],
      );
      tips.push(commit.sha);
    }
    const pr = mergeStages(f, tips);
    assert.deepEqual(
      git(pr, "ls-files", "doc/loom/knowledge/learnings/")
        .split("\n")
        .map((path) => path.replace(/uses\/\d+-/, "uses/<time>-")),
      [
        learningFilePath(earlier).replace("/learnings/", "/learnings/retired/"),
        `doc/loom/knowledge/learnings/uses/<time>-pr-1-${PLAN_ID}-stage-a-1-stage.json`,
        `doc/loom/knowledge/learnings/uses/<time>-pr-1-${PLAN_ID}-stage-b-1-stage.json`,
      ],
    );
  });
});
