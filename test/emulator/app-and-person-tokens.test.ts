import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { createClient, statusOf, type Client } from "./emulator-fixture.ts";
import { emulatorRoutes } from "./emulator-routes.ts";
import { ROUTE_ACCESS } from "./route-access.ts";
import { runGit } from "./run-git.ts";
import { startEmulator, type Emulator } from "./start-emulator.ts";

/*
 * The App's installation token holds what its manifest (loom's app.yml) asks for, as GitHub grants
 * it on installation; people act with their repository role.
 */
const APP_YML = parse(await readFile(new URL("../../app.yml", import.meta.url), "utf8")) as {
  default_permissions: Record<string, string>;
};

const repo = { owner: "acme", repo: "widgets" };
const INTEGRATION = { status: 403, message: "Resource not accessible by integration" };
/** The App's own endpoints take its JWT (the emulator takes any before a manifest registration). */
const APP_JWT = "header.claims.signature";

describe("the App's installation token and people's tokens", () => {
  let emulator: Emulator;
  let head: string;
  before(async () => {
    emulator = await startEmulator({ permissions: { alice: "write", tom: "triage", rita: "read" } });
    await emulator.as("alice").openPullRequest({ head: "feature", files: { "a.txt": "a\n" } });
    head = (await emulator.repo().git.readBranch("feature")) ?? "";
  });
  after(async () => {
    await emulator.close();
  });

  it("issues installation tokens holding app.yml's permissions, or a subset asked for, never more", async () => {
    const appClient = createClient(emulator, APP_JWT);
    const issued = await appClient.rest.apps.createInstallationAccessToken({ installation_id: 4242 });
    assert.deepEqual(issued.data.permissions, { ...APP_YML.default_permissions, metadata: "read" });
    const installation = await appClient.rest.apps.getRepoInstallation(repo);
    assert.deepEqual(installation.data.permissions, issued.data.permissions);
    const narrowed = await appClient.rest.apps.createInstallationAccessToken({
      installation_id: 4242,
      permissions: { checks: "read" },
    });
    const reader = createClient(emulator, narrowed.data.token);
    assert.equal((await reader.rest.checks.listForRef({ ...repo, ref: head })).status, 200);
    assert.deepEqual(
      await statusOf(reader.rest.checks.create({ ...repo, name: "loom: a", head_sha: head })),
      INTEGRATION,
    );
    const beyond = await statusOf(
      appClient.rest.apps.createInstallationAccessToken({
        installation_id: 4242,
        permissions: { secrets: "read" },
      }),
    );
    assert.equal(beyond?.status, 422);
  });

  it("refuses the App what app.yml does not ask for, and its installation token the App's own endpoints", async () => {
    const app = createClient(emulator);
    assert.deepEqual(await statusOf(app.rest.actions.listRepoSecrets(repo)), INTEGRATION);
    assert.deepEqual(await statusOf(app.rest.apps.getRepoInstallation(repo)), {
      status: 401,
      message: "A JSON web token could not be decoded",
    });
    assert.deepEqual(await statusOf(createClient(emulator, APP_JWT).rest.repos.get(repo)), INTEGRATION);
  });

  it("people act with their role: read comments, triage labels, write pushes and creates refs", async () => {
    const as = (login: string): Client => createClient(emulator, emulator.tokenFor(login));
    const comment = { ...repo, issue_number: 1, body: "/loom run" };
    const label = { ...repo, issue_number: 1, labels: ["loom:run"] };
    const ref = { ...repo, ref: "refs/heads/from-api", sha: head };
    const personal = { status: 403, message: "Resource not accessible by personal access token" };
    assert.equal((await as("rita").rest.issues.createComment(comment)).status, 201);
    assert.deepEqual(await statusOf(as("rita").rest.issues.addLabels(label)), personal);
    assert.equal((await as("tom").rest.issues.addLabels(label)).status, 200);
    assert.deepEqual(await statusOf(as("tom").rest.git.createRef(ref)), personal);
    assert.equal((await as("alice").rest.git.createRef(ref)).status, 201);
    assert.deepEqual(
      await statusOf(as("alice").rest.checks.create({ ...repo, name: "mine", head_sha: head })),
      personal,
      "only GitHub Apps write check runs",
    );
    const url = new URL(emulator.cloneUrl());
    url.username = "rita";
    url.password = emulator.tokenFor("rita");
    const bare = emulator.repo().git.dir;
    const push = await runGit(bare, ["push", url.toString(), `${head}:refs/heads/rita`]);
    assert.match(push.stderr, /^remote: Permission to acme\/widgets\.git denied to rita\.$/m);
    url.username = "alice";
    url.password = emulator.tokenFor("alice");
    const allowed = await runGit(bare, ["push", url.toString(), `${head}:refs/heads/alice`]);
    assert.equal(allowed.code, 0, allowed.stderr);
    emulator.assertNoViolations();
  });

  it("knows which permission every route it serves takes", () => {
    const missing = Object.keys(emulatorRoutes).filter((operationId) => !(operationId in ROUTE_ACCESS));
    assert.deepEqual(missing, []);
  });
});

describe("an App whose manifest asks for less", () => {
  let emulator: Emulator;
  before(async () => {
    emulator = await startEmulator({ appPermissions: { contents: "read" } });
  });
  after(async () => {
    await emulator.close();
  });

  it("gets 403 for every request outside its permissions, REST and git", async () => {
    const app = createClient(emulator);
    const main = (await emulator.repo().git.readBranch("main")) ?? "";
    assert.equal((await app.rest.repos.getContent({ ...repo, path: "README.md" })).status, 200);
    assert.deepEqual(
      await statusOf(app.rest.git.createRef({ ...repo, ref: "refs/heads/x", sha: main })),
      INTEGRATION,
    );
    assert.deepEqual(await statusOf(app.rest.pulls.list(repo)), INTEGRATION);
    const url = new URL(emulator.cloneUrl());
    url.username = "x-access-token";
    url.password = "x";
    const push = await runGit(emulator.repo().git.dir, ["push", url.toString(), `${main}:refs/heads/y`]);
    assert.match(push.stderr, /^remote: Permission to acme\/widgets\.git denied to loom\[bot\]\.$/m);
  });
});
