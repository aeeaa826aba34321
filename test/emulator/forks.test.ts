import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createClient, statusOf, type Client } from "./emulator-fixture.ts";
import { startEmulator, type Emulator } from "./start-emulator.ts";

const base = { owner: "acme", repo: "widgets" };
const fork = { owner: "mallory", repo: "widgets" };

/**
 * A pull request from a fork whose branch is named `main`, like the base repository's default
 * branch: the two are different branches of different repositories, as on GitHub.
 */
describe("forks are repositories of their own", () => {
  let emulator: Emulator;
  let app: Client;
  let baseMainBefore: string;
  before(async () => {
    emulator = await startEmulator({ webhookUrl: null });
    app = createClient(emulator);
    baseMainBefore = (await emulator.repo().git.readBranch("main"))!;
    await emulator.as("mallory").openPullRequest({
      head: "main",
      headRepo: "mallory/widgets",
      files: { "evil.txt": "from the fork\n" },
    });
  });
  after(async () => {
    await emulator.close();
  });

  it("commits the fork's branch in the fork, never in the base repository's branch of that name", async () => {
    assert.equal(await emulator.repo().git.readBranch("main"), baseMainBefore);
    const forkMain = await emulator.repo("mallory/widgets").git.readBranch("main");
    assert.notEqual(forkMain, baseMainBefore);
    assert.equal(await emulator.repo().git.readBlob("main", "evil.txt"), null);
    assert.equal(
      (await emulator.repo("mallory/widgets").git.readBlob("main", "evil.txt"))?.toString(),
      "from the fork\n",
    );
  });

  it("exposes the head as refs/pull/<n>/head in the base repository, and head.repo is the fork", async () => {
    const { data } = await app.rest.pulls.get({ ...base, pull_number: 1 });
    const forkMain = await emulator.repo("mallory/widgets").git.readBranch("main");
    assert.equal(data.head.sha, forkMain);
    assert.equal(data.head.ref, "main");
    assert.equal(data.head.repo?.full_name, "mallory/widgets");
    assert.equal(data.head.repo?.fork, true);
    assert.notEqual(data.head.repo?.id, data.base.repo.id);
    const ref = await app.rest.git.getRef({ ...base, ref: "pull/1/head" });
    assert.equal(ref.data.object.sha, forkMain);
  });

  it("moves refs/pull/<n>/head and sends synchronize when the fork's branch moves", async () => {
    const pushed = await emulator.as("mallory", "mallory/widgets").push("main", { "more.txt": "more\n" });
    assert.equal((await app.rest.git.getRef({ ...base, ref: "pull/1/head" })).data.object.sha, pushed);
    const sync = emulator.deliveries.findLast((d) => d.event === "pull_request");
    assert.equal((sync?.payload as { action?: string }).action, "synchronize");
    assert.equal((sync?.payload as { after?: string }).after, pushed);
    assert.equal(await emulator.repo().git.readBranch("main"), baseMainBefore);
  });

  it("answers 404 to the App's token for the fork, reads and writes alike", async () => {
    assert.equal((await statusOf(app.rest.repos.get(fork)))?.status, 404);
    const sha = (await emulator.repo("mallory/widgets").git.readBranch("main"))!;
    const write = app.rest.git.createRef({ ...fork, ref: "refs/heads/loom/x", sha });
    assert.equal((await statusOf(write))?.status, 404);
    assert.equal(await emulator.repo("mallory/widgets").git.readBranch("loom/x"), null);
  });

  it("lets the base repository merge the fork's head by SHA", async () => {
    const sha = (await app.rest.git.getRef({ ...base, ref: "pull/1/head" })).data.object.sha;
    await app.rest.git.createRef({ ...base, ref: "refs/heads/loom/pr-1/result/PLAN-x", sha });
    const branch = await app.rest.repos.getBranch({ ...base, branch: "loom/pr-1/result/PLAN-x" });
    assert.equal(branch.data.commit.sha, sha);
  });

  it("sends head.repo null once the fork is deleted, keeping the head in the base repository", async () => {
    await emulator.deleteRepo("mallory/widgets");
    const { data } = await app.rest.pulls.get({ ...base, pull_number: 1 });
    assert.equal(data.head.repo, null);
    assert.equal((await app.rest.git.getRef({ ...base, ref: "pull/1/head" })).data.object.sha, data.head.sha);
  });
});
