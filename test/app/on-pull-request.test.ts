import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";
import pino from "pino";
import { ProbotOctokit } from "probot";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import { onPullRequest } from "../../app/engine/on-pull-request.ts";
import { readStoredPlan, splitStoredPlan } from "../../app/engine/stored-plan.ts";
import type { StoredPlan } from "../../app/engine/stored-plan.ts";
import type { PlanKey, Store } from "../../app/store/store.ts";
import type { PlanState } from "../../src/orchestrator/state.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { pullRequestPayload, REPO } from "../support/webhook-payloads.ts";
import type { PullOptions } from "../support/webhook-payloads.ts";
import { blobShaOf, createFakeGitHub, nextSha } from "./fake-github.ts";
import type { FakeGitHub } from "./fake-github.ts";
import {
  BOT,
  CALLER_PATH,
  callerPinning,
  CURRENT_RELEASE,
  DIAMOND_PLAN,
  HARNESS_RELEASES,
  openTempStore,
  PLAN_PATH,
} from "./loom-harness.ts";

/*
 * The pull_request webhook as loom's engine takes it, called directly on a real temporary store
 * and GitHub faked at the network: which plans a pull request's files hold, whether each may run
 * on its own, what a push, a close, a reopen and a label change do to each plan's stored state, and
 * which pushes (loom's own merges and renames) cost no reading at all.
 */

const Octokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });
const PUSHED_AT = "2026-11-27T09:30:00Z";
const OTHER_PATH = "doc/plans/PLAN-other.md";
const CONFIG = ".github/loom.yml";

/** A one-stage plan (its id is its file's stem). */
function onePlan(title: string, extra = ""): string {
  return `# Plan: ${title}

<!-- loom METADATA -->

\`\`\`yaml
loom:
  version: 1
  stages:
    - id: only
      name: Only
      dependencies: []
      acceptance: ["npm test"]
${extra}\`\`\`

<!-- END loom METADATA -->
`;
}

type Line = { msg: string; [field: string]: unknown };
type Json = Record<string, unknown>;

type Setup = {
  store: Store;
  /** This test's pull request (each test has its own in the one store). */
  pr: number;
  /** A webhook payload of this test's pull request at the fake's head (unless `headSha` says). */
  payload(action: string, options?: Partial<PullOptions>): Record<string, unknown>;
  /** The pull request's files as GitHub lists them. */
  setPullFiles(files: Parameters<FakeGitHub["pullFiles"]["set"]>[1]): void;
  deps: EngineDeps;
  gh: GitHubMock;
  fake: FakeGitHub;
  lines: Line[];
  head: string;
  /** Delivers a pull_request webhook of the test's pull request, pushed at `updatedAt` (null: no time). */
  deliver(action: string, options?: Partial<PullOptions> & { updatedAt?: string | null }): Promise<void>;
  /** The request lines (method and path) GitHub saw, from `from` on. */
  requests(from?: number): string[];
  /** Every stored plan of the pull request: path, active. */
  plans(): Promise<[string, boolean][]>;
  /** The stored plan of `planPath`. */
  read(planPath?: string): Promise<StoredPlan & { version: number; active: boolean }>;
  /** Changes the stored state of `planPath` as the reducer would have (a merge recorded, an approval). */
  patch(planPath: string, change: (state: PlanState) => void): Promise<void>;
  /** The failing plan check runs loom wrote: name and summary. */
  invalid(): { name: unknown; summary: string }[];
  /** Asserts every request was valid and answered, no mock left unused. */
  finish(): void;
};

// One store for the file (opening one per test would cost more than the tests): each test has
// its own pull request in it.
let shared: { store: Store; close: () => Promise<void> } | undefined;
before(async () => {
  shared = await openTempStore();
});
after(async () => {
  await shared?.close();
});
let pulls = 0;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const undo of cleanups.splice(0).reverse()) undo();
});

function setUp(options: { botLogin?: string | null; serverUrl?: string } = {}): Setup {
  assert.ok(shared);
  const { store } = shared;
  const pr = (pulls += 1);
  const keyOf = (planPath: string): PlanKey => ({
    installationId: REPO.installationId,
    owner: REPO.owner,
    repo: REPO.repo,
    pr,
    planPath,
  });
  const gh = mockGitHub();
  const fake = createFakeGitHub(gh);
  cleanups.push(() => {
    fake.close();
    gh.cleanup();
  });
  const head = nextSha();
  fake.refs.set("main", nextSha());
  fake.refs.set("feature/plan", head);
  fake.files.set(`${head}:${PLAN_PATH}`, DIAMOND_PLAN);
  fake.pullFiles.set(pr, ["README.md", PLAN_PATH]);
  fake.roles.set("alice", "write");
  fake.files.set(`main:${CALLER_PATH}`, callerPinning(CURRENT_RELEASE.sha));
  const lines: Line[] = [];
  let time = Date.UTC(2026, 10, 27, 10, 0, 0);
  const deps: EngineDeps = {
    store,
    getOctokit: () => Promise.resolve(new Octokit({ auth: "t" })),
    now: () => (time += 1000),
    workerId: "w",
    log: pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as Line) }),
    getBotLogin: () => Promise.resolve(options.botLogin === undefined ? BOT : options.botLogin),
    releases: HARNESS_RELEASES,
    ...(options.serverUrl === undefined ? {} : { serverUrl: options.serverUrl }),
  };
  const read = async (planPath = PLAN_PATH) => {
    const record = await store.getPlan(keyOf(planPath));
    assert.ok(record, `a stored plan for ${planPath}`);
    return { ...readStoredPlan(record), version: record.version, active: record.active };
  };
  const payload = (action: string, pull: Partial<PullOptions> = {}) => {
    const built = pullRequestPayload(action, {
      number: pr,
      headSha: fake.refs.get("feature/plan") ?? head,
      ...pull,
    });
    // A fork is another repository: GitHub gives it its own id.
    if (pull.headRepo !== undefined && pull.headRepo !== REPO.fullName)
      (((built["pull_request"] as Json)["head"] as Json)["repo"] as Json)["id"] = 99;
    return built;
  };
  return {
    store,
    pr,
    payload,
    setPullFiles: (files) => fake.pullFiles.set(pr, files),
    deps,
    gh,
    fake,
    lines,
    head,
    deliver: async (action, { updatedAt = PUSHED_AT, ...pull } = {}) => {
      const built = payload(action, pull);
      const fields = built["pull_request"] as Json;
      if (updatedAt === null) delete fields["updated_at"];
      else fields["updated_at"] = updatedAt;
      await onPullRequest(deps, built);
    },
    requests: (from = 0) =>
      gh.requests.slice(from).map((r) => `${r.method} ${decodeURIComponent(r.path.replace(/\?.*$/, ""))}`),
    plans: async () =>
      (await store.listPlansForPull(REPO.owner, REPO.repo, pr)).map(
        (record) => [record.key.planPath, record.active] as [string, boolean],
      ),
    read,
    patch: async (planPath, change) => {
      const record = await store.getPlan(keyOf(planPath));
      assert.ok(record);
      const stored = readStoredPlan(record);
      change(stored.state);
      const { core, setParts, dropParts } = splitStoredPlan(stored, record);
      const committed = await store.commitPlan(keyOf(planPath), {
        expectedVersion: record.version,
        state: core,
        setParts,
        dropParts,
        active: !stored.state.closed,
        effects: [],
        timers: [],
      });
      assert.ok(committed.ok);
    },
    invalid: () =>
      fake.checkRuns
        .filter((run) => run["conclusion"] === "failure")
        .map((run) => ({
          name: run["name"],
          summary: String((run["output"] as { summary?: string }).summary),
        })),
    finish: () => {
      fake.close();
      assert.deepEqual(fake.unhandled, [], "requests the fake does not know");
      gh.done();
    },
  };
}

/** The pull request's head moves to a new commit whose files are `files` (path → text). */
function push(s: Setup, files: Record<string, string>): string {
  const sha = nextSha();
  s.fake.refs.set("feature/plan", sha);
  for (const [path, text] of Object.entries(files)) s.fake.files.set(`${sha}:${path}`, text);
  return sha;
}

// ---------------------------------------------------------------------------------------------
// What a delivery is

test("a pull_request payload without the fields loom needs is logged with how many are missing, and costs nothing", async () => {
  const s = setUp();
  const payload = s.payload("opened");
  delete payload["pull_request"];
  await onPullRequest(s.deps, payload);
  assert.deepEqual(
    s.lines.map((line) => [line.msg, line["issues"]]),
    [["pull_request payload without the fields loom needs", 1]],
  );
  assert.deepEqual(s.requests(), []);
  assert.deepEqual(await s.plans(), []);
  s.finish();
});

test("pull request actions loom does not act on (edited, assigned) read nothing and change no plan", async () => {
  const s = setUp();
  await s.deliver("opened");
  const before = await s.read();
  const seen = s.gh.requests.length;
  for (const action of ["edited", "assigned", "review_requested"]) await s.deliver(action);
  assert.deepEqual(s.requests(seen), []);
  assert.equal((await s.read()).version, before.version);
  s.finish();
});

// ---------------------------------------------------------------------------------------------
// Labels

test("a loom label added by someone who may steer loom reaches every running plan of the pull request", async () => {
  const s = setUp();
  s.fake.files.set(`${s.head}:${OTHER_PATH}`, onePlan("Other"));
  s.setPullFiles([PLAN_PATH, OTHER_PATH]);
  await s.deliver("opened");
  const seen = s.gh.requests.length;
  await s.deliver("labeled", { labels: ["loom:hold", "loom:skip:PLAN-other/only"], label: "loom:hold" });
  assert.deepEqual(s.requests(seen), ["GET /repos/acme/widgets/collaborators/alice/permission"]);
  assert.deepEqual((await s.read()).state.labels, ["loom:hold"]);
  assert.deepEqual((await s.read(OTHER_PATH)).state.labels, ["loom:hold", "loom:skip:only"]);
  assert.deepEqual(
    s.lines.map((line) => line.msg),
    [],
  );
  s.finish();
});

test("a loom label added by someone who may not steer loom is ignored, saying who and why", async () => {
  const s = setUp();
  await s.deliver("opened");
  await s.deliver("labeled", { labels: ["loom:hold"], label: "loom:hold", sender: { login: "mallory" } });
  const { state } = await s.read();
  assert.deepEqual(state.labels, []);
  assert.deepEqual(state.ignoredLabels, ["loom:hold"]);
  const line = s.lines.find((entry) => entry.msg === "label change ignored");
  assert.equal(line?.["sender"], "mallory");
  assert.match(String(line?.["reason"]), /mallory/);
  s.finish();
});

test("a label removed by someone who may steer loom stops counting, and a label of another plan is no change", async () => {
  const s = setUp();
  await s.deliver("opened", { labels: ["loom:hold"] });
  await s.deliver("unlabeled", { labels: [], label: "loom:hold" });
  assert.deepEqual((await s.read()).state.labels, []);
  // A label qualified for another plan: passed on as a full set, nothing this plan obeys.
  await s.deliver("labeled", { labels: ["loom:skip:PLAN-else/a"], label: "loom:skip:PLAN-else/a" });
  const { state } = await s.read();
  assert.deepEqual(state.labels, []);
  assert.deepEqual(state.ignoredLabels ?? [], []);
  s.finish();
});

test("a label that is not loom's, or a pull request without running plans, reads nothing and changes nothing", async () => {
  const s = setUp();
  await s.deliver("labeled", { labels: ["loom:hold"], label: "loom:hold" });
  assert.deepEqual(s.requests(), []);
  await s.deliver("opened");
  const { version } = await s.read();
  const seen = s.gh.requests.length;
  await s.deliver("labeled", { labels: ["bug"], label: "bug" });
  assert.deepEqual(s.requests(seen), []);
  assert.equal((await s.read()).version, version);
  await s.deliver("closed");
  const closed = await s.read();
  await s.deliver("labeled", { labels: ["loom:hold"], label: "loom:hold" });
  assert.equal((await s.read()).version, closed.version);
  s.finish();
});

test("a label change without the label named (a full set only) still passes the set on", async () => {
  const s = setUp();
  await s.deliver("opened");
  const payload = s.payload("labeled", { labels: ["loom:hold"] });
  delete payload["label"];
  await onPullRequest(s.deps, payload);
  assert.deepEqual((await s.read()).state.labels, ["loom:hold"]);
  s.finish();
});

test("a label a person without the role put on keeps no effect when a writer changes another label", async () => {
  const s = setUp();
  await s.deliver("opened");
  await s.deliver("labeled", { labels: ["loom:hold"], label: "loom:hold", sender: { login: "mallory" } });
  await s.deliver("labeled", { labels: ["loom:hold", "loom:skip:b"], label: "loom:skip:b" });
  const { state } = await s.read();
  assert.deepEqual(state.labels, ["loom:skip:b"]);
  assert.deepEqual(state.ignoredLabels, ["loom:hold"]);
  assert.equal(state.hold, false);
  s.finish();
});

test("labels under the repository's own prefix are loom's; the default prefix is then no label of loom's", async () => {
  const s = setUp();
  s.fake.files.set(`main:${CONFIG}`, "label_prefix: bot\n");
  await s.deliver("opened");
  const { version } = await s.read();
  await s.deliver("labeled", { labels: ["loom:hold"], label: "loom:hold" });
  assert.equal((await s.read()).version, version);
  await s.deliver("labeled", { labels: ["loom:hold", "bot:hold"], label: "bot:hold" });
  assert.deepEqual((await s.read()).state.labels, ["bot:hold"]);
  s.finish();
});

// ---------------------------------------------------------------------------------------------
// Closing and reopening

test("a merged or closed pull request closes its running plans, saying which in their stages' notes", async () => {
  for (const merged of [true, false]) {
    const s = setUp();
    await s.deliver("opened");
    await s.deliver("closed", { merged });
    const { state, active } = await s.read();
    assert.equal(active, false);
    assert.equal(state.closed, true);
    const notes = state.stages["a"]?.notes.map((note) => note.text) ?? [];
    assert.ok(
      notes.some((text) => text.startsWith(`pull request ${merged ? "merged" : "closed"}`)),
      notes.join("; "),
    );
    s.finish();
  }
});

test("closing again leaves a closed plan alone; closing a pull request without plans reads nothing", async () => {
  const s = setUp();
  await s.deliver("closed");
  assert.deepEqual(s.requests(), []);
  await s.deliver("opened");
  await s.deliver("closed");
  const { version } = await s.read();
  await s.deliver("closed");
  assert.equal((await s.read()).version, version);
  s.finish();
});

test("a plan file taken out of the pull request stops its plan; the others go on", async () => {
  const s = setUp();
  s.fake.files.set(`${s.head}:${OTHER_PATH}`, onePlan("Other"));
  s.setPullFiles([PLAN_PATH, OTHER_PATH]);
  await s.deliver("opened");
  const sha = push(s, { [OTHER_PATH]: onePlan("Other") });
  s.setPullFiles([{ filename: PLAN_PATH, status: "removed" }, OTHER_PATH]);
  await s.deliver("synchronize", { headSha: sha, before: s.head });
  assert.deepEqual(await s.plans(), [
    [PLAN_PATH, false],
    [OTHER_PATH, true],
  ]);
  const notes = (await s.read()).state.stages["a"]?.notes.map((note) => note.text) ?? [];
  assert.ok(notes.some((text) => text.startsWith("pull request closed")));
  // Taking the last one out closes it too, and reads no config.
  const last = push(s, {});
  s.setPullFiles(["README.md"]);
  const seen = s.gh.requests.length;
  const { version } = await s.read();
  await s.deliver("synchronize", { headSha: last, before: sha });
  assert.deepEqual(await s.plans(), [
    [PLAN_PATH, false],
    [OTHER_PATH, false],
  ]);
  assert.deepEqual(s.requests(seen), [`GET /repos/acme/widgets/pulls/${s.pr}/files`]);
  assert.equal((await s.read()).version, version, "a plan already stopped is not stopped again");
  s.finish();
});

test("a reopened pull request opens its closed plan again, trusted as before, with the labels it obeyed", async () => {
  const s = setUp();
  await s.deliver("opened", { labels: ["loom:hold"] });
  // loom:hold was taken off by someone who may not steer loom: the plan still obeys it.
  await s.patch(PLAN_PATH, (state) => {
    state.ignoredLabels = ["loom:hold"];
  });
  await s.deliver("closed");
  await s.deliver("reopened", { labels: [] });
  const { state, active } = await s.read();
  assert.equal(active, true);
  assert.equal(state.closed, false);
  assert.equal(state.trusted, true);
  assert.deepEqual(state.labels, ["loom:hold"]);
  assert.equal(state.hold, true);
  s.finish();
});

test("a reopen at loom's own head keeps the plan trusted when its file is the one it had and it was trusted", async () => {
  const s = setUp();
  await s.deliver("opened");
  const rename = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  await s.patch(PLAN_PATH, (state) => {
    state.loomHeads = [rename];
  });
  await s.deliver("closed");
  await s.deliver("reopened", { headSha: rename });
  const { state } = await s.read();
  assert.equal(state.pr.headSha, rename);
  assert.equal(state.trusted, true);
  s.finish();
});

test("a reopen at loom's own head with the plan file changed, or a plan that waited for a person, waits for a person", async () => {
  for (const variant of ["changed", "untrusted"] as const) {
    const s = setUp();
    await s.deliver("opened");
    const text = variant === "changed" ? DIAMOND_PLAN.replace("name: Join", "name: Join them") : DIAMOND_PLAN;
    const rename = push(s, { [PLAN_PATH]: text });
    await s.patch(PLAN_PATH, (state) => {
      state.loomHeads = [rename];
      if (variant === "untrusted") state.trusted = false;
    });
    await s.deliver("closed");
    await s.deliver("reopened", { headSha: rename });
    assert.equal((await s.read()).state.trusted, false, variant);
    s.finish();
  }
});

// ---------------------------------------------------------------------------------------------
// Opening

test("an opened pull request with a plan file records the plan, trusted, at its head and GitHub's time of it", async () => {
  const s = setUp();
  await s.deliver("opened");
  const { state, repo, active } = await s.read();
  assert.equal(active, true);
  assert.deepEqual(state.pr, {
    number: s.pr,
    headRef: "feature/plan",
    headSha: s.head,
    baseRef: "main",
    headAt: Date.parse(PUSHED_AT),
  });
  assert.equal(state.trusted, true);
  assert.equal(state.plan.id, "PLAN-diamond");
  assert.equal(state.plan.path, PLAN_PATH);
  assert.equal(state.plan.blobSha, blobShaOf(DIAMOND_PLAN));
  assert.equal(state.fork, undefined);
  assert.equal(state.checkNamesWithPlan, undefined, "alone in its pull request");
  assert.equal(state.settings.liveHeartbeats, undefined, "github.com lists heartbeats while a run runs");
  assert.deepEqual(state.labels, []);
  assert.deepEqual(repo, {
    workflowFile: "loom.yml",
    labelPrefix: "loom",
    minimumRole: "write",
    branchCleanup: true,
    defaultBranch: "main",
  });
  assert.ok(
    state.plan.warnings?.some((warning) => /no description/.test(warning.message)),
    "the plan keeps its warnings",
  );
  assert.equal(state.stages["a"]?.status, "executing", "its first stage is dispatched");
  assert.equal(s.gh.requests[0]?.path, `/repos/acme/widgets/pulls/${s.pr}/files?per_page=100`);
  assert.deepEqual(s.requests(), [
    `GET /repos/acme/widgets/pulls/${s.pr}/files`,
    `GET /repos/acme/widgets/contents/${CONFIG}`,
    `GET /repos/acme/.github/contents/${CONFIG}`,
    "GET /repos/acme/widgets/collaborators/alice/permission",
    `GET /repos/acme/widgets/contents/${PLAN_PATH}`,
    // The caller workflow on the default branch, once the plan starts: how its pin is served.
    `GET /repos/acme/widgets/contents/${CALLER_PATH}`,
  ]);
  assert.deepEqual(state.settings.caller, { kind: "current", release: CURRENT_RELEASE.version });
  assert.deepEqual(
    s.lines.map((line) => line.msg),
    [],
  );
  s.finish();
});

test("a pull request whose head time GitHub did not send (or sent unreadable) records its head without one", async () => {
  for (const updatedAt of [null, "not a time"]) {
    const s = setUp();
    await s.deliver("opened", { updatedAt });
    const { state } = await s.read();
    assert.equal("headAt" in state.pr, false);
    assert.equal(state.pr.headSha, s.head);
    s.finish();
  }
});

test("on GitHub Enterprise Server a plan does not wait for heartbeats of a running run", async () => {
  const s = setUp({ serverUrl: "https://ghe.example.com" });
  await s.deliver("opened");
  assert.equal((await s.read()).state.settings.liveHeartbeats, false);
  s.finish();
});

test("the repository's settings come from .github/loom.yml on its default branch", async () => {
  const s = setUp();
  s.fake.refs.set("trunk", nextSha());
  s.fake.files.set(
    `trunk:${CONFIG}`,
    "workflow: build.yml\nlabel_prefix: bot\nminimum_role: maintain\ndelete_branches: false\n",
  );
  s.fake.roles.set("alice", "admin");
  const payload = s.payload("opened", { labels: ["bot:hold", "loom:hold"] });
  (payload["repository"] as Record<string, unknown>)["default_branch"] = "trunk";
  await onPullRequest(s.deps, payload);
  const { state, repo } = await s.read();
  assert.deepEqual(repo, {
    workflowFile: "build.yml",
    labelPrefix: "bot",
    minimumRole: "maintain",
    branchCleanup: false,
    defaultBranch: "trunk",
  });
  assert.equal(state.trusted, true, "alice is an admin");
  assert.deepEqual(state.labels, ["bot:hold"], "only the labels under the configured prefix");
  assert.equal(state.settings.deleteBranches, false);
  assert.ok(
    s.gh.find("GET", `/repos/acme/widgets/contents/${encodeURIComponent(CONFIG)}?ref=trunk`).length === 1,
  );
  s.finish();
});

test("loom's labels on an opened pull request are the plan's from the start, qualified ones only for their plan", async () => {
  const s = setUp();
  await s.deliver("opened", {
    labels: ["loom:hold", "loom:skip:PLAN-diamond/b", "loom:skip:PLAN-else/c", "bug"],
  });
  const { state } = await s.read();
  assert.deepEqual(state.labels, ["loom:hold", "loom:skip:b"]);
  assert.equal(state.hold, true);
  s.finish();
});

test("a pull request without a plan file costs one read of its files and records nothing", async () => {
  const s = setUp();
  s.setPullFiles(["README.md", { filename: PLAN_PATH, status: "removed" }]);
  await s.deliver("opened");
  assert.deepEqual(s.requests(), [`GET /repos/acme/widgets/pulls/${s.pr}/files`]);
  assert.deepEqual(await s.plans(), []);
  s.finish();
});

// ---------------------------------------------------------------------------------------------
// Trust

test("a plan from a fork waits for an approval and records its fork, without asking for the author's role", async () => {
  const s = setUp();
  await s.deliver("opened", { headRepo: "someone/widgets" });
  const { state } = await s.read();
  assert.equal(state.trusted, false);
  assert.equal(state.fork?.repo, "someone/widgets");
  assert.equal(state.fork?.target, `loom/pr-${s.pr}/result/PLAN-diamond`);
  assert.equal(s.gh.find("GET", "/repos/acme/widgets/collaborators/").length, 0);
  assert.deepEqual(
    s.lines.map((line) => [line.msg, line["path"], line["reason"]]),
    [["plan waits for /loom approve", PLAN_PATH, "the pull request comes from a fork"]],
  );
  s.finish();
});

test("a push to a fork plan whose fork was deleted since records the fork as gone", async () => {
  const s = setUp();
  await s.deliver("opened", { headRepo: "someone/widgets" });
  const old = s.head;
  const sha = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  const payload = s.payload("synchronize", { headSha: sha, before: old });
  ((payload["pull_request"] as Record<string, unknown>)["head"] as Record<string, unknown>)["repo"] = null;
  await onPullRequest(s.deps, payload);
  const { state } = await s.read();
  assert.equal(state.pr.headSha, sha);
  assert.equal(state.fork?.repo, null);
  s.finish();
});

test("a plan whose author lacks the minimum role waits for an approval, saying why in the log", async () => {
  const s = setUp();
  await s.deliver("opened", { author: { login: "mallory" } });
  const { state } = await s.read();
  assert.equal(state.trusted, false);
  assert.deepEqual(state.stages["a"]?.sessions, [], "nothing is dispatched");
  const line = s.lines.find((entry) => entry.msg === "plan waits for /loom approve");
  assert.equal(line?.["path"], PLAN_PATH);
  assert.match(String(line?.["reason"]), /mallory/);
  s.finish();
});

test("a plan first seen in a push loom's bot sent waits for a person, whoever opened the pull request", async () => {
  const s = setUp();
  await s.deliver("opened", { sender: { login: BOT, type: "Bot" } });
  assert.equal((await s.read()).state.trusted, false);
  s.finish();
});

test("without loom's login known, a pusher's login is never taken for loom's", async () => {
  const s = setUp({ botLogin: null });
  await s.deliver("opened", { sender: { login: BOT, type: "Bot" } });
  assert.equal((await s.read()).state.trusted, true);
  s.finish();
});

// ---------------------------------------------------------------------------------------------
// Problems reported on check runs

test("an invalid .github/loom.yml fails every plan file's check run and records no plan", async () => {
  const s = setUp();
  s.fake.files.set(`main:${CONFIG}`, "max_plans_per_pull: 0\n");
  s.fake.files.set(`${s.head}:${OTHER_PATH}`, onePlan("Other"));
  s.setPullFiles([PLAN_PATH, OTHER_PATH]);
  await s.deliver("opened");
  const reports = s.invalid();
  assert.deepEqual(
    reports.map((report) => report.name),
    ["loom: PLAN-diamond", "loom: PLAN-other"],
  );
  for (const { summary } of reports) {
    assert.match(summary, /line 1:1: \.github\/loom\.yml \(default branch\): /);
    assert.doesNotMatch(summary, /Warnings/);
  }
  assert.deepEqual(await s.plans(), []);
  assert.equal(s.gh.find("GET", `/repos/acme/widgets/contents/${encodeURIComponent(PLAN_PATH)}`).length, 0);
  s.finish();
});

test("plan files over max_plans_per_pull are refused once, on the first refused file's check run; the others run", async () => {
  const s = setUp();
  s.fake.files.set(`main:${CONFIG}`, "max_plans_per_pull: 1\n");
  s.fake.files.set(`${s.head}:${OTHER_PATH}`, onePlan("Other"));
  s.setPullFiles([PLAN_PATH, OTHER_PATH]);
  await s.deliver("opened");
  assert.deepEqual(await s.plans(), [[PLAN_PATH, true]]);
  const [report, ...more] = s.invalid();
  assert.deepEqual(more, []);
  assert.equal(report?.name, "loom: PLAN-other");
  assert.match(
    report?.summary ?? "",
    /line 1:1: this pull request has more plan files than \.github\/loom\.yml's max_plans_per_pull \(1\): loom does not run doc\/plans\/PLAN-other\.md;/,
  );
  assert.doesNotMatch(report?.summary ?? "", /Warnings/);
  s.finish();
});

test("a running plan keeps its place under max_plans_per_pull; a closed one does not", async () => {
  const s = setUp();
  s.fake.files.set(`main:${CONFIG}`, "max_plans_per_pull: 1\n");
  const first = "doc/plans/PLAN-a.md";
  s.fake.files.set(`${s.head}:${first}`, onePlan("A"));
  s.setPullFiles([PLAN_PATH]);
  await s.deliver("opened");
  // A new plan file listed before the running one is the one refused.
  const sha = push(s, { [first]: onePlan("A"), [PLAN_PATH]: DIAMOND_PLAN });
  s.setPullFiles([first, PLAN_PATH]);
  await s.deliver("synchronize", { headSha: sha, before: s.head });
  assert.deepEqual(await s.plans(), [[PLAN_PATH, true]]);
  assert.deepEqual(
    s.invalid().map((report) => report.name),
    ["loom: PLAN-a"],
  );
  // Closed, the running plan holds no place: on a reopen the files take their turn in order.
  await s.deliver("closed");
  await s.deliver("reopened");
  assert.deepEqual(await s.plans(), [
    [first, true],
    [PLAN_PATH, false],
  ]);
  s.finish();
});

test("two plan files with one plan id are both refused, naming each other; nothing is recorded", async () => {
  const s = setUp();
  const [left, right] = ["left/PLAN-x.md", "right/PLAN-x.md"];
  s.fake.files.set(`${s.head}:${left}`, onePlan("Left"));
  s.fake.files.set(`${s.head}:${right}`, onePlan("Right"));
  s.setPullFiles([left, right]);
  await s.deliver("opened");
  assert.deepEqual(await s.plans(), []);
  const summaries = s.invalid().map((report) => report.summary);
  assert.equal(summaries.length, 2);
  assert.match(
    summaries[0] ?? "",
    /another plan in this pull request, right\/PLAN-x\.md, has the same plan id PLAN-x: loom names branches, keys and check runs after it, so rename one of the two files/,
  );
  assert.match(
    summaries[1] ?? "",
    /another plan in this pull request, left\/PLAN-x\.md, has the same plan id PLAN-x/,
  );
  for (const summary of summaries) assert.doesNotMatch(summary, /Warnings/);
  s.finish();
});

test("a plan already running keeps running when a second file with its plan id comes in; the newcomer is refused", async () => {
  const s = setUp();
  const [left, right] = ["left/PLAN-x.md", "right/PLAN-x.md"];
  s.fake.files.set(`${s.head}:${left}`, onePlan("Left"));
  s.setPullFiles([left]);
  await s.deliver("opened");
  const sha = push(s, { [left]: onePlan("Left"), [right]: onePlan("Right") });
  s.setPullFiles([left, right]);
  await s.deliver("synchronize", { headSha: sha, before: s.head });
  assert.deepEqual(await s.plans(), [[left, true]]);
  assert.equal((await s.read(left)).state.pr.headSha, sha);
  const reports = s.invalid();
  assert.equal(reports.length, 1);
  assert.match(reports[0]?.summary ?? "", /^`right\/PLAN-x\.md` is not a valid loom plan/);
  s.finish();
});

test("an invalid plan file is reported with its errors and warnings; a valid one beside it runs", async () => {
  const s = setUp();
  const broken = "doc/plans/PLAN-broken.md";
  s.fake.files.set(
    `${s.head}:${broken}`,
    onePlan("Broken", "  strange_key: 1\n").replace("version: 1", "version: 7"),
  );
  s.setPullFiles([broken, PLAN_PATH]);
  await s.deliver("opened");
  assert.deepEqual(await s.plans(), [[PLAN_PATH, true]]);
  const [report] = s.invalid();
  assert.equal(report?.name, "loom: PLAN-broken");
  assert.match(report?.summary ?? "", /version/);
  assert.match(report?.summary ?? "", /Warnings:[\s\S]*unknown key `loom\.strange_key`/);
  s.finish();
});

test("a plan file too large to read is reported as such; one gone from the head is passed over", async () => {
  const s = setUp();
  const big = "doc/plans/PLAN-big.md";
  const gone = "doc/plans/PLAN-gone.md";
  s.fake.files.set(`${s.head}:${big}`, onePlan("Big") + "x".repeat(1024 * 1024));
  s.setPullFiles([big, gone, PLAN_PATH]);
  await s.deliver("opened");
  assert.deepEqual(await s.plans(), [[PLAN_PATH, true]]);
  const reports = s.invalid();
  assert.deepEqual(
    reports.map((report) => report.name),
    ["loom: PLAN-big"],
  );
  assert.match(reports[0]?.summary ?? "", /line 1:1: doc\/plans\/PLAN-big\.md is larger than 1 MiB/);
  s.finish();
});

test("a plan with more stages than max_stages_per_plan is reported at the first stage over, with its warnings", async () => {
  const s = setUp();
  s.fake.files.set(`main:${CONFIG}`, "max_stages_per_plan: 3\n");
  const text = DIAMOND_PLAN.replace("      name: Join\n", "      name: Join\n      strange_key: 1\n");
  s.fake.files.set(`${s.head}:${PLAN_PATH}`, text);
  await s.deliver("opened");
  assert.deepEqual(await s.plans(), []);
  const [report] = s.invalid();
  const line = text.split("\n").indexOf("    - id: d") + 1;
  assert.ok(line > 1);
  assert.ok(report?.summary.includes(`- line ${line}:1 (stage \`d\`): the plan has 4 stages`));
  assert.match(
    report?.summary ?? "",
    /\(stage `d`\): the plan has 4 stages, more than \.github\/loom\.yml's max_stages_per_plan \(3\)/,
  );
  assert.match(report?.summary ?? "", /Warnings:/);
  s.finish();
});

test("a closed plan does not keep its plan id: a second file with that id on a reopen makes both refused", async () => {
  const s = setUp();
  const [left, right] = ["left/PLAN-x.md", "right/PLAN-x.md"];
  s.fake.files.set(`${s.head}:${left}`, onePlan("Left"));
  s.setPullFiles([left]);
  await s.deliver("opened");
  await s.deliver("closed");
  const sha = push(s, { [left]: onePlan("Left"), [right]: onePlan("Right") });
  s.setPullFiles([left, right]);
  await s.deliver("reopened", { headSha: sha });
  assert.deepEqual(await s.plans(), [[left, false]]);
  assert.equal(s.invalid().length, 2);
  s.finish();
});

// ---------------------------------------------------------------------------------------------
// Several plans

test("plans sharing a pull request name their check runs with the plan; a plan alone does not", async () => {
  const s = setUp();
  s.fake.files.set(`${s.head}:${OTHER_PATH}`, onePlan("Other"));
  s.setPullFiles([PLAN_PATH, OTHER_PATH]);
  await s.deliver("opened");
  assert.equal((await s.read()).state.checkNamesWithPlan, true);
  assert.equal((await s.read(OTHER_PATH)).state.checkNamesWithPlan, true);
  s.finish();
});

test("a plan added beside a running one shares the pull request even though its file is listed alone", async () => {
  const s = setUp();
  await s.deliver("opened");
  // GitHub lists the new file only: the running plan's file is unchanged in this listing.
  const sha = push(s, { [OTHER_PATH]: onePlan("Other"), [PLAN_PATH]: DIAMOND_PLAN });
  s.setPullFiles([OTHER_PATH]);
  await s.deliver("synchronize", { headSha: sha, before: s.head });
  assert.equal((await s.read(OTHER_PATH)).state.checkNamesWithPlan, true);
  // The running plan's file was not listed: it was taken out, so it is closed.
  assert.deepEqual(await s.plans(), [
    [PLAN_PATH, false],
    [OTHER_PATH, true],
  ]);
  s.finish();
});

test("a plan file renamed IN_PROGRESS- is the plan known by its first name, read once even when both names are listed", async () => {
  const s = setUp();
  await s.deliver("opened");
  const renamed = "doc/plans/IN_PROGRESS-PLAN-diamond.md";
  const changed = DIAMOND_PLAN.replace("name: Join", "name: Join them");
  const sha = push(s, { [renamed]: changed, [PLAN_PATH]: changed });
  s.setPullFiles([renamed, PLAN_PATH]);
  const seen = s.gh.requests.length;
  await s.deliver("synchronize", { headSha: sha, before: s.head });
  assert.deepEqual(await s.plans(), [[PLAN_PATH, true]]);
  const { state } = await s.read();
  assert.equal(state.stages["d"]?.name, "Join them");
  assert.deepEqual(
    s.requests(seen).filter((line) => line.includes("PLAN-diamond")),
    [`GET /repos/acme/widgets/contents/${renamed}`],
  );
  s.finish();
});

test("a plan beside a closed one is alone in its pull request", async () => {
  const s = setUp();
  await s.deliver("opened");
  await s.deliver("closed");
  const sha = push(s, { [OTHER_PATH]: onePlan("Other") });
  s.setPullFiles([OTHER_PATH]);
  await s.deliver("reopened", { headSha: sha });
  assert.equal((await s.read(OTHER_PATH)).state.checkNamesWithPlan, undefined);
  s.finish();
});

// ---------------------------------------------------------------------------------------------
// Pushes

test("a person's push moves the plan to its head with the push's time; an unchanged plan file is not changed", async () => {
  const s = setUp();
  await s.deliver("opened");
  const opened = await s.read();
  const sha = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  await s.deliver("synchronize", { headSha: sha, before: s.head, updatedAt: "2026-11-27T11:00:00Z" });
  const { state } = await s.read();
  assert.equal(state.pr.headSha, sha);
  assert.equal(state.pr.headAt, Date.parse("2026-11-27T11:00:00Z"));
  assert.deepEqual(state.plan, opened.state.plan);
  assert.equal(state.trusted, true);
  s.finish();
});

test("a push without GitHub's time of it moves the head and forgets the old head's time", async () => {
  const s = setUp();
  await s.deliver("opened");
  const sha = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  await s.deliver("synchronize", { headSha: sha, before: s.head, updatedAt: null });
  const { state } = await s.read();
  assert.equal(state.pr.headSha, sha);
  assert.equal("headAt" in state.pr, false);
  s.finish();
});

test("a push that changes the plan file changes the plan, still trusted when a person pushed it", async () => {
  const s = setUp();
  await s.deliver("opened");
  const changed = DIAMOND_PLAN.replace("name: Join", "name: Join them");
  const sha = push(s, { [PLAN_PATH]: changed });
  await s.deliver("synchronize", { headSha: sha, before: s.head });
  const { state } = await s.read();
  assert.equal(state.plan.blobSha, blobShaOf(changed));
  assert.equal(state.stages["d"]?.name, "Join them");
  assert.equal(state.trusted, true);
  assert.equal(state.distrusted, undefined);
  s.finish();
});

test("a plan file changed in a commit loom made (a stage's merge) is nobody's: the plan waits for a person from then on", async () => {
  const s = setUp();
  await s.deliver("opened");
  const changed = DIAMOND_PLAN.replace("name: Join", "name: Join them");
  const merge = push(s, { [PLAN_PATH]: changed });
  await s.patch(PLAN_PATH, (state) => {
    state.loomHeads = [merge];
  });
  await s.deliver("synchronize", { headSha: merge, before: s.head });
  const { state } = await s.read();
  assert.equal(state.plan.blobSha, blobShaOf(changed));
  assert.equal(state.trusted, false);
  assert.match(state.distrusted ?? "", /changed in a commit loom made/);
  s.finish();
});

test("a push read again (opened delivered twice) on the head the plan is at changes nothing", async () => {
  const s = setUp();
  await s.deliver("opened");
  const { version } = await s.read();
  await s.deliver("opened");
  assert.equal((await s.read()).version, version);
  s.finish();
});

test("a push that dropped a merged stage's commit from the branch loses the stage's merge", async () => {
  const s = setUp();
  await s.deliver("opened");
  const merged = nextSha();
  await s.patch(PLAN_PATH, (state) => {
    Object.assign(state.stages["a"]!, { status: "completed", merged: true, mergedSha: merged, sessions: [] });
  });
  const sha = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  s.fake.compare = () => "diverged";
  await s.deliver("synchronize", { headSha: sha, before: s.head });
  const { state } = await s.read();
  assert.equal(state.pr.headSha, sha);
  assert.equal(state.stages["a"]?.merged, false);
  assert.deepEqual(
    s.gh.find("GET", "/repos/acme/widgets/compare/").map((request) => request.path.replace(/\?.*/, "")),
    [`/repos/acme/widgets/compare/${s.head}...${sha}`, `/repos/acme/widgets/compare/${merged}...${sha}`],
  );
  s.finish();
});

test("the webhook of a push the head already moved past (loom moved it from an answer) moves nothing back and loses no merge", async () => {
  const s = setUp();
  await s.deliver("opened");
  const late = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  const current = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  await s.patch(PLAN_PATH, (state) => {
    state.pr.headSha = current;
    // Stage a's merge made the current head: the late push, older, does not contain it.
    state.loomHeads = [current];
    Object.assign(state.stages["a"]!, {
      status: "completed",
      merged: true,
      mergedSha: current,
      sessions: [],
    });
  });
  // GitHub: the head loom knows contains the pushed one.
  s.fake.compare = (base, head) => (base === late && head === current ? "ahead" : "diverged");
  s.fake.refs.set("feature/plan", late);
  const { version } = await s.read();
  await s.deliver("synchronize", { headSha: late, before: s.head });
  assert.equal((await s.read()).state.pr.headSha, current);
  assert.equal((await s.read()).state.stages["a"]?.merged, true);
  assert.equal((await s.read()).version, version);
  assert.deepEqual(
    s.gh.find("GET", "/repos/acme/widgets/compare/").map((request) => request.path.replace(/\?.*/, "")),
    [`/repos/acme/widgets/compare/${late}...${current}`],
  );
  assert.deepEqual(
    s.lines.filter((line) => line.msg.startsWith("a late push")).map((line) => [line.msg, line["head"]]),
    [["a late push webhook: the head is already past it", late]],
  );
  s.finish();
});

test("the head loom knows, seen again, costs no compare, even with a person's commit on a merged stage", async () => {
  const s = setUp();
  await s.deliver("opened");
  // Stage a merged at loom's commit `merge`; a person pushed on top of it, and loom moved there.
  const merge = nextSha();
  const person = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  await s.patch(PLAN_PATH, (state) => {
    state.loomHeads = [merge];
    state.pr.headSha = person;
    Object.assign(state.stages["a"]!, { status: "completed", merged: true, mergedSha: merge, sessions: [] });
  });
  const { version } = await s.read();
  // The same head's webhook again (GitHub sends a delivery twice, or another `before`).
  await s.deliver("synchronize", { headSha: person, before: nextSha() });
  assert.equal((await s.read()).state.stages["a"]?.merged, true);
  assert.equal((await s.read()).version, version);
  assert.equal(s.gh.find("GET", "/repos/acme/widgets/compare/").length, 0);
  s.finish();
});

test("a push that is not in the head loom knows moves the head, after one compare", async () => {
  const s = setUp();
  await s.deliver("opened");
  const other = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  const current = nextSha();
  await s.patch(PLAN_PATH, (state) => {
    state.pr.headSha = current;
  });
  s.fake.compare = () => "diverged";
  await s.deliver("synchronize", { headSha: other, before: s.head });
  assert.equal((await s.read()).state.pr.headSha, other);
  assert.equal(s.lines.filter((line) => line.msg.startsWith("a late push")).length, 0);
  s.finish();
});

test("a push from the head loom knows (a reset to an older commit) moves the head without a compare", async () => {
  const s = setUp();
  await s.deliver("opened");
  const older = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  s.fake.compare = () => "ahead";
  await s.deliver("synchronize", { headSha: older, before: s.head });
  assert.equal((await s.read()).state.pr.headSha, older);
  assert.equal(s.gh.find("GET", "/repos/acme/widgets/compare/").length, 0);
  s.finish();
});

test("a head read without a push (a reopen) moves the plan without a compare", async () => {
  const s = setUp();
  await s.deliver("opened");
  const elsewhere = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  s.fake.compare = () => "ahead";
  await s.deliver("reopened", { headSha: elsewhere });
  assert.equal((await s.read()).state.pr.headSha, elsewhere);
  assert.equal(s.gh.find("GET", "/repos/acme/widgets/compare/").length, 0);
  s.finish();
});

test("the late webhook of loom's own earlier merge is known from the merges loom recorded: no compare", async () => {
  const s = setUp();
  s.fake.files.set(`${s.head}:${OTHER_PATH}`, onePlan("Other"));
  s.setPullFiles([PLAN_PATH, OTHER_PATH]);
  await s.deliver("opened");
  // The diamond plan is past the push (loom moved it to its later merge); the other plan is not.
  const first = push(s, { [PLAN_PATH]: DIAMOND_PLAN, [OTHER_PATH]: onePlan("Other") });
  const second = nextSha();
  await s.patch(PLAN_PATH, (state) => {
    state.loomHeads = [first, second];
    state.pr.headSha = second;
    // A merged stage: a push the head is past loses no merge, and costs no compare for it.
    Object.assign(state.stages["a"]!, { status: "completed", merged: true, mergedSha: first, sessions: [] });
  });
  s.fake.compare = () => "diverged";
  await s.deliver("synchronize", { headSha: first, before: s.head });
  assert.equal((await s.read()).state.pr.headSha, second);
  assert.equal((await s.read()).state.stages["a"]?.merged, true);
  assert.equal((await s.read(OTHER_PATH)).state.pr.headSha, first);
  assert.equal(s.gh.find("GET", "/repos/acme/widgets/compare/").length, 0);
  assert.deepEqual(
    s.lines.filter((line) => line.msg.startsWith("a late push")).map((line) => line["head"]),
    [first],
  );
  s.finish();
});

/**
 * Mallory's plan at a push `merge` that loom read back before it knew it as its own merge: the head
 * moved, the approval of `approved` dropped and its loss recorded (to `lostTo`, the read head by
 * default).
 */
async function readBackUnapproved(lostTo?: string): Promise<{ s: Setup; approved: string; merge: string }> {
  const s = setUp();
  await s.deliver("opened", { author: { login: "mallory" } });
  const approved = s.head;
  const merge = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  await s.patch(PLAN_PATH, (state) => {
    state.pr.headSha = merge;
    state.approvalLost = { from: approved, to: lostTo ?? merge, onApproved: false };
  });
  return { s, approved, merge };
}

test("the push behind a head loom read back, seen again with its `before`, marks the lost approval as on the approved head", async () => {
  const { s, approved, merge } = await readBackUnapproved();
  await s.deliver("synchronize", { headSha: merge, before: approved });
  const { state } = await s.read();
  assert.deepEqual(state.approvalLost, { from: approved, to: merge, onApproved: true });
  s.finish();
});

test("the same head seen again with another `before`, or without a lost approval, changes nothing", async () => {
  const { s, approved, merge } = await readBackUnapproved(nextSha());
  const { version } = await s.read();
  await s.deliver("synchronize", { headSha: merge, before: approved });
  assert.equal((await s.read()).version, version);
  assert.deepEqual(
    s.lines.map((line) => line.msg).filter((msg) => msg.startsWith("a late push")),
    [],
    "the head loom knows is no late push",
  );
  s.finish();
});

test("a late `opened` webhook (no `before`) at the head loom read back leaves the approval lost and commits nothing", async () => {
  const { s, approved, merge } = await readBackUnapproved();
  const { version } = await s.read();
  await s.deliver("opened", { headSha: merge, author: { login: "mallory" } });
  const { state, version: after } = await s.read();
  assert.deepEqual(state.approvalLost, { from: approved, to: merge, onApproved: false });
  assert.equal(after, version, "nothing committed");
  s.finish();
});

test("a push reads .github/loom.yml again: the stored repository settings follow it", async () => {
  const s = setUp();
  await s.deliver("opened");
  s.fake.files.set(`main:${CONFIG}`, "workflow: build.yml\ndelete_branches: false\n");
  const sha = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  await s.deliver("synchronize", { headSha: sha, before: s.head });
  const { repo } = await s.read();
  assert.equal(repo.workflowFile, "build.yml");
  assert.equal(repo.branchCleanup, false);
  s.finish();
});

// ---------------------------------------------------------------------------------------------
// loom's own heads

test("the push of loom's own merge on a running plan reads only the file list and keeps an approval", async () => {
  const s = setUp();
  await s.deliver("opened", { author: { login: "mallory" } });
  const approved = s.head;
  const merge = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  await s.patch(PLAN_PATH, (state) => {
    state.approvedSha = approved;
    state.loomHeads = [merge];
  });
  const seen = s.gh.requests.length;
  await s.deliver("synchronize", { headSha: merge, before: approved, updatedAt: "2026-11-27T12:00:00Z" });
  assert.deepEqual(s.requests(seen), [`GET /repos/acme/widgets/pulls/${s.pr}/files`]);
  const { state } = await s.read();
  assert.equal(state.pr.headSha, merge);
  assert.equal(state.pr.headAt, Date.parse("2026-11-27T12:00:00Z"));
  assert.equal(state.approvedSha, merge, "the approval carries over to loom's merge on the approved head");
  s.finish();
});

test("loom's own merge moves each running plan not on it yet; a plan already there or closed is left alone", async () => {
  const s = setUp();
  s.fake.files.set(`${s.head}:${OTHER_PATH}`, onePlan("Other"));
  const closed = "doc/plans/PLAN-closed.md";
  s.fake.files.set(`${s.head}:${closed}`, onePlan("Closed"));
  s.setPullFiles([PLAN_PATH, OTHER_PATH, closed]);
  await s.deliver("opened", { updatedAt: null });
  const merge = push(s, {
    [PLAN_PATH]: DIAMOND_PLAN,
    [OTHER_PATH]: onePlan("Other"),
    [closed]: onePlan("Closed"),
  });
  await s.patch(PLAN_PATH, (state) => {
    state.loomHeads = [merge];
  });
  await s.patch(OTHER_PATH, (state) => {
    state.loomHeads = [merge];
    state.pr.headSha = merge;
  });
  await s.patch(closed, (state) => {
    state.closed = true;
  });
  s.setPullFiles([PLAN_PATH, OTHER_PATH]);
  const [other, shut] = [await s.read(OTHER_PATH), await s.read(closed)];
  const seen = s.gh.requests.length;
  await s.deliver("synchronize", { headSha: merge, before: s.head, updatedAt: null });
  assert.deepEqual(s.requests(seen), [`GET /repos/acme/widgets/pulls/${s.pr}/files`]);
  const moved = await s.read();
  assert.equal(moved.state.pr.headSha, merge);
  assert.equal("headAt" in moved.state.pr, false);
  assert.equal((await s.read(OTHER_PATH)).version, other.version);
  assert.equal((await s.read(closed)).version, shut.version);
  assert.equal((await s.read(closed)).state.pr.headSha, s.head);
  s.finish();
});

test("loom's own head that also changed a running plan's file is read in full: the plan waits for a person", async () => {
  const s = setUp();
  await s.deliver("opened");
  const changed = DIAMOND_PLAN.replace("name: Join", "name: Join them");
  const merge = push(s, { [PLAN_PATH]: changed });
  await s.patch(PLAN_PATH, (state) => {
    state.loomHeads = [merge];
  });
  await s.deliver("synchronize", { headSha: merge, before: s.head });
  const { state } = await s.read();
  assert.equal(state.plan.blobSha, blobShaOf(changed));
  assert.equal(state.trusted, false);
  s.finish();
});

test("a new plan file that came in with loom's own head is read and waits for a person; the running plan moves on", async () => {
  const s = setUp();
  await s.deliver("opened", { author: { login: "mallory" } });
  const approved = s.head;
  const merge = push(s, { [PLAN_PATH]: DIAMOND_PLAN, [OTHER_PATH]: onePlan("Other") });
  await s.patch(PLAN_PATH, (state) => {
    state.approvedSha = approved;
    state.loomHeads = [merge];
  });
  s.fake.roles.set("mallory", "admin");
  s.setPullFiles([PLAN_PATH, OTHER_PATH]);
  await s.deliver("synchronize", { headSha: merge, before: approved });
  const running = await s.read();
  assert.equal(running.state.pr.headSha, merge);
  assert.equal(running.state.approvedSha, merge, "loom's merge on the approved head keeps the approval");
  const added = await s.read(OTHER_PATH);
  assert.equal(added.state.trusted, false, "first seen at loom's head: a person approves it");
  s.finish();
});

test("the push of a commit loom already moved every running plan to, with no plan file changed, costs no request", async () => {
  const s = setUp();
  await s.deliver("opened");
  const rename = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  await s.patch(PLAN_PATH, (state) => {
    state.pr.headSha = rename;
    state.pr.plansUntouched = true;
    state.loomHeads = [rename];
  });
  const { version } = await s.read();
  const seen = s.gh.requests.length;
  await s.deliver("synchronize", { headSha: rename, before: s.head });
  assert.deepEqual(s.requests(seen), []);
  assert.equal((await s.read()).version, version);
  // Reopened at that head, the pull request is read again (a reopen is no push of loom's).
  await s.deliver("reopened", { headSha: rename });
  assert.notDeepEqual(s.requests(seen), []);
  s.finish();
});

test("a plan on loom's head whose files loom did not read there takes the file list", async () => {
  const s = setUp();
  await s.deliver("opened");
  const rename = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  await s.patch(PLAN_PATH, (state) => {
    state.pr.headSha = rename;
  });
  const seen = s.gh.requests.length;
  await s.deliver("synchronize", { headSha: rename, before: s.head });
  assert.deepEqual(s.requests(seen).slice(0, 1), [`GET /repos/acme/widgets/pulls/${s.pr}/files`]);
  s.finish();
});

test("the late webhook of loom's own earlier commit, with every running plan past it, costs no request", async () => {
  const s = setUp();
  await s.deliver("opened");
  const [first, second] = [nextSha(), nextSha()];
  await s.patch(PLAN_PATH, (state) => {
    state.loomHeads = [first, second];
    state.pr.headSha = second;
  });
  const seen = s.gh.requests.length;
  await s.deliver("synchronize", { headSha: first, before: s.head });
  assert.deepEqual(s.requests(seen), []);
  assert.equal((await s.read()).state.pr.headSha, second);
  // The same head read back (no `before`) is no late push: the file list is read.
  await s.deliver("opened", { headSha: first });
  assert.deepEqual(s.requests(seen).slice(0, 1), [`GET /repos/acme/widgets/pulls/${s.pr}/files`]);
  s.finish();
});

test("a pull request opened again at loom's own merge (not a push) is read in full", async () => {
  const s = setUp();
  await s.deliver("opened");
  const merge = push(s, { [PLAN_PATH]: DIAMOND_PLAN });
  await s.patch(PLAN_PATH, (state) => {
    state.loomHeads = [merge];
  });
  const seen = s.gh.requests.length;
  await s.deliver("reopened", { headSha: merge });
  assert.deepEqual(s.requests(seen), [
    `GET /repos/acme/widgets/pulls/${s.pr}/files`,
    `GET /repos/acme/widgets/contents/${CONFIG}`,
    `GET /repos/acme/.github/contents/${CONFIG}`,
    "GET /repos/acme/widgets/collaborators/alice/permission",
    `GET /repos/acme/widgets/contents/${PLAN_PATH}`,
  ]);
  assert.equal((await s.read()).state.pr.headSha, merge);
  s.finish();
});
