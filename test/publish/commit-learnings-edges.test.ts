import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { commitLearnings, type CommitLearningsInput } from "../../action/src/publish/commit-learnings.ts";
import type { LearningUse } from "../../src/knowledge/learning-use.ts";
import { learningFilePath, learningId, renderLearningFile } from "../../src/knowledge/learning-file.ts";
import { PLAN_ID, PublishFixture, STAGE_ID, git, recordedLearning, fakeToken } from "./git-fixture.ts";

// The learnings commit the publish job adds on its own (issue 12's mutation testing): what it
// keeps, what it skips and says why, and the commit message a person reads in the history.

const LOG = "doc/loom/knowledge/learnings.md";

const learning = recordedLearning;
const earlier = learning({
  summary: "Database pool size comes from DB_POOL_MAX",
  detail:
    "src/db/pool.ts reads DB_POOL_MAX at start; tests set it to 1 so parallel tests do not exhaust connections.",
  tags: ["db"],
  scope: "src/db/pool.ts",
  stage_id: "db",
  recorded_at: "2026-11-01T00:00:00.000Z",
});
const logged = learning({
  summary: "Migrations run in filename order from db/migrations",
  detail:
    "The runner sorts db/migrations by file name, so a new migration needs a timestamp prefix later than every existing one.",
  tags: ["db", "migrations"],
  scope: "db/migrations/**",
  stage_id: "db",
  recorded_at: "2026-10-01T00:00:00.000Z",
});
const earlierPath = learningFilePath(earlier);
const retiredPath = earlierPath.replace("/learnings/", "/learnings/retired/");
const token = fakeToken;

const failingUse: LearningUse = {
  version: 1,
  plan_run: `pr-7/${PLAN_ID}`,
  plan_id: PLAN_ID,
  stage_id: STAGE_ID,
  attempt: 1,
  kind: "stage",
  outcome: "completed-with-failures",
  recorded_at: "2026-11-23T00:00:00.000Z",
  given: [learningId(earlier)],
};

let fixture: PublishFixture | undefined;
afterEach(() => fixture?.cleanup());

/** A repository whose main holds `files`; commitLearnings runs in the publish job's clone. */
function setUp(files: Record<string, string> = {}): { f: PublishFixture; parent: string } {
  const f = (fixture = new PublishFixture({
    [earlierPath]: renderLearningFile(earlier),
    [LOG]: `# Learnings\n\n${renderLearningFile(logged)}`,
    ...files,
  }));
  return { f, parent: git(f.workspace, "rev-parse", "origin/main") };
}

function commitIn(f: PublishFixture, parent: string, change: Partial<CommitLearningsInput>) {
  return commitLearnings({
    cwd: f.workspace,
    parent,
    learnings: [],
    origin: { plan_id: PLAN_ID, stage_id: STAGE_ID },
    knownSecrets: [],
    tempDir: join(f.root, "tmp"),
    ...change,
  });
}

describe("commitLearnings: what it keeps and what it skips", () => {
  it("keeps new learnings, says why each other one is skipped, and reads no more than a session may record", async () => {
    const { f, parent } = setUp();
    const fresh = learning();
    const invalid = { summary: "no category" };
    const nearLogged = { ...logged, summary: `${logged.summary}!`, stage_id: STAGE_ID };
    const learnings = [
      fresh,
      invalid,
      learning({
        summary: "Registry password for pushes",
        detail: `Push with ${token()} as the password, always.`,
      }),
      nearLogged,
      ...Array.from({ length: 6 }, () => invalid),
      learning({
        summary: "An eleventh learning is one too many",
        detail: "Sessions record ten learnings at most; the rest are dropped unread by the publish job.",
      }),
    ];
    const commit = await commitIn(f, parent, { learnings });
    assert.deepEqual(commit.paths, [learningFilePath(fresh)]);
    assert.deepEqual(commit.skipped, [
      "learning 2: not a valid learning",
      "learning 3: it contains what looks like a github-token (the value is not shown)",
      "learning 4: a near-duplicate of a learning on the branch",
      ...[5, 6, 7, 8, 9, 10].map((n) => `learning ${n}: not a valid learning`),
    ]);
    assert.deepEqual(commit.retired, []);
    assert.equal(commit.usePath, undefined);
    assert.ok(commit.sha !== null);
    assert.equal(
      git(f.workspace, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%P|%B", commit.sha),
      `loom-publish <loom-publish@users.noreply.github.com>|loom-publish <loom-publish@users.noreply.github.com>|${parent}|loom: learnings of stage ${STAGE_ID}: 1 recorded\n\n- pattern: ${fresh.summary}`,
    );
    assert.equal(git(f.workspace, "status", "--porcelain"), "", "the checkout is untouched");
  });

  it("skips a learning whose file name is taken by something that is not a learning", async () => {
    const fresh = learning();
    const { f, parent } = setUp({ [learningFilePath(fresh)]: "a person's notes\n" });
    const commit = await commitIn(f, parent, { learnings: [fresh] });
    assert.deepEqual(commit, {
      sha: null,
      paths: [],
      skipped: [`learning 1: ${learningFilePath(fresh)} exists already`],
      retired: [],
    });
  });

  it("commits nothing when nothing is left to write", async () => {
    const { f, parent } = setUp();
    assert.deepEqual(await commitIn(f, parent, {}), { sha: null, paths: [], skipped: [], retired: [] });
  });
});

describe("commitLearnings: the use record and retirement", () => {
  it("records the use, retires what fails too often and says all of it in the message", async () => {
    const { f, parent } = setUp();
    const fresh = learning();
    const commit = await commitIn(f, parent, {
      learnings: [fresh],
      use: failingUse,
      retirePolicy: { retire_after_failures: 1, retire_after_plans: 0 },
    });
    const reason = "the last 1 stages it was given to failed their checks";
    assert.deepEqual(commit.retired, [{ from: earlierPath, to: retiredPath, reason }]);
    assert.match(commit.usePath ?? "", /^doc\/loom\/knowledge\/learnings\/uses\/20261123000000-pr-7-/);
    assert.ok(commit.sha !== null);
    assert.equal(
      git(f.workspace, "log", "-1", "--format=%B", commit.sha),
      [
        `loom: learnings of stage ${STAGE_ID}: 1 recorded, 1 given noted (completed-with-failures), 1 retired`,
        "",
        `- pattern: ${fresh.summary}`,
        `- given (completed-with-failures): ${learningId(earlier)}`,
        `- retired ${learningId(earlier)}: ${reason}`,
      ].join("\n"),
    );
    assert.deepEqual(
      git(f.workspace, "diff-tree", "-r", "--no-commit-id", "--name-status", "--no-renames", commit.sha)
        .split("\n")
        .sort(),
      [
        `A\t${commit.usePath}`,
        `A\t${learningFilePath(fresh)}`,
        `A\t${retiredPath}`,
        `D\t${earlierPath}`,
      ].sort(),
    );
    assert.match(git(f.workspace, "show", `${commit.sha}:${retiredPath}`), new RegExp(reason));
  });

  it("retires with the default policy when none is given", async () => {
    const { f, parent } = setUp();
    const uses = Array.from({ length: 3 }, (_, attempt) => ({ ...failingUse, attempt: attempt + 1 }));
    let tip = parent;
    for (const use of uses.slice(0, 2)) {
      const commit = await commitIn(f, tip, { use });
      assert.deepEqual(commit.retired, [], "the default retires after 3 failures in a row");
      tip = commit.sha ?? tip;
    }
    const third = await commitIn(f, tip, { use: uses[2] });
    assert.deepEqual(
      third.retired.map((r) => r.to),
      [retiredPath],
    );
  });

  it("writes neither a use record nor a retired file that is already there", async () => {
    const usePath = "doc/loom/knowledge/learnings/uses/20261123000000-pr-7-PLAN-demo-build-api-1-stage.json";
    const { f, parent } = setUp({ [usePath]: "{}\n", [retiredPath]: "moved by a person\n" });
    const commit = await commitIn(f, parent, {
      use: failingUse,
      retirePolicy: { retire_after_failures: 1, retire_after_plans: 0 },
    });
    assert.deepEqual(commit, { sha: null, paths: [], skipped: [], retired: [] });
  });

  const otherPlanUse = (change: Partial<LearningUse> = {}): LearningUse => ({
    ...failingUse,
    plan_run: "pr-9/PLAN-other",
    plan_id: "PLAN-other",
    outcome: "completed",
    given: [learningId(logged)],
    ...change,
  });
  const unused = { retire_after_failures: 0, retire_after_plans: 1 };

  it("retires a learning no stage of a later plan run was given", async () => {
    const { f, parent } = setUp();
    const commit = await commitIn(f, parent, { use: otherPlanUse(), retirePolicy: unused });
    assert.deepEqual(commit.retired, [
      { from: earlierPath, to: retiredPath, reason: "no stage was given it in 1 plan runs" },
    ]);
  });

  it("does not count plan runs of the learning's own plan, or from before it was recorded", async () => {
    const { f, parent } = setUp();
    const samePlan = await commitIn(f, parent, {
      use: otherPlanUse({ plan_id: PLAN_ID, plan_run: `pr-9/${PLAN_ID}` }),
      retirePolicy: unused,
    });
    assert.deepEqual(samePlan.retired, []);
    const before = await commitIn(f, parent, {
      use: otherPlanUse({ recorded_at: "2026-10-31T00:00:00.000Z" }),
      retirePolicy: unused,
    });
    assert.deepEqual(before.retired, []);
  });

  it("never retires a file holding several learnings, or one already retired", async () => {
    const second = learning({ summary: "Seeds load from db/seeds in order", stage_id: "db" });
    const { f, parent } = setUp({
      [earlierPath]: `${renderLearningFile(earlier)}\n${renderLearningFile(second)}`,
      [retiredPath.replace(".md", "-old.md")]: renderLearningFile(logged),
    });
    const use = { ...failingUse, given: [learningId(earlier), learningId(second), learningId(logged)] };
    const commit = await commitIn(f, parent, {
      use,
      retirePolicy: { retire_after_failures: 1, retire_after_plans: 0 },
    });
    assert.deepEqual(commit.retired, []);
  });

  it("counts plan runs already recorded on the branch when this session gave none", async () => {
    const { f, parent } = setUp();
    const noted = await commitIn(f, parent, {
      use: otherPlanUse(),
      retirePolicy: { retire_after_failures: 0, retire_after_plans: 0 },
    });
    assert.ok(noted.sha !== null);
    const commit = await commitIn(f, noted.sha, { learnings: [learning()], retirePolicy: unused });
    assert.deepEqual(
      commit.retired.map((r) => r.reason),
      ["no stage was given it in 1 plan runs"],
    );
  });
});

describe("commitLearnings: the answer and the message", () => {
  it("answers no use record when the session was given none", async () => {
    const { f, parent } = setUp();
    const fresh = learning();
    const commit = await commitIn(f, parent, { learnings: [fresh] });
    assert.ok(commit.sha !== null);
    assert.deepEqual(commit, { sha: commit.sha, paths: [learningFilePath(fresh)], skipped: [], retired: [] });
  });

  it("names only what the commit holds: given learnings noted, no count of zero recorded", async () => {
    const { f, parent } = setUp();
    const commit = await commitIn(f, parent, {
      use: { ...failingUse, outcome: "completed", given: [learningId(earlier), learningId(logged)] },
    });
    assert.ok(commit.sha !== null);
    assert.equal(
      git(f.workspace, "log", "-1", "--format=%B", commit.sha),
      [
        `loom: learnings of stage ${STAGE_ID}: 2 given noted (completed)`,
        "",
        `- given (completed): ${learningId(earlier)}, ${learningId(logged)}`,
      ].join("\n"),
    );
  });

  it("skips a learning that repeats a retired one", async () => {
    // Only the retired file holds it: learnings.md does not.
    const { f, parent } = setUp({
      [LOG]: "# Learnings\n",
      [retiredPath.replace(".md", "-old.md")]: renderLearningFile(logged),
    });
    const again = { ...logged, summary: `${logged.summary}!`, stage_id: STAGE_ID };
    const commit = await commitIn(f, parent, { learnings: [again] });
    assert.deepEqual(commit.skipped, ["learning 1: a near-duplicate of a learning on the branch"]);
  });
});
