import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ProbotOctokit } from "probot";
import { createClient, statusOf, type Client } from "./emulator-fixture.ts";
import { startEmulator, type Emulator } from "./start-emulator.ts";
import { startWebhookReceiver } from "./start-webhook-receiver.ts";

const repo = { owner: "acme", repo: "widgets" };
/** `GET /repos/{o}/{r}/installation` is the App's own (a JWT); the emulator takes any before a manifest registration. */
const APP_JWT = "header.claims.signature";

describe("scripted faults on routes", () => {
  let emulator: Emulator;
  let octokit: Client;
  let clock = Date.UTC(2026, 10, 22);
  before(async () => {
    emulator = await startEmulator({ now: () => clock });
    octokit = createClient(emulator);
  });
  after(async () => {
    await emulator.close();
  });

  it("answers a scripted 502 as many times as asked, then the real answer", async () => {
    emulator.faults.route({
      method: "GET",
      path: "/repos/{owner}/{repo}",
      type: "status",
      status: 502,
      times: 2,
    });
    assert.equal((await statusOf(octokit.rest.repos.get(repo)))?.status, 502);
    assert.equal((await statusOf(octokit.rest.repos.get(repo)))?.status, 502);
    assert.equal((await octokit.rest.repos.get(repo)).status, 200);
  });

  it("gives a primary rate limit with x-ratelimit-remaining 0 and the reset from the emulator's clock", async () => {
    emulator.faults.route({
      path: "/repos/{owner}/{repo}/merges",
      type: "rate-limit",
      status: 403,
      resetInSeconds: 120,
    });
    const response = await fetch(`${emulator.url}/repos/acme/widgets/merges`, {
      method: "POST",
      headers: { authorization: "token x", "content-type": "application/json" },
      body: JSON.stringify({ base: "main", head: "main" }),
    });
    assert.equal(response.status, 403);
    assert.equal(response.headers.get("x-ratelimit-remaining"), "0");
    assert.equal(response.headers.get("x-ratelimit-reset"), String(clock / 1000 + 120));
    assert.equal(response.headers.get("retry-after"), null);
    assert.match(((await response.json()) as { message: string }).message, /rate limit/);
  });

  it("gives a secondary rate limit with retry-after, matched by a RegExp on the concrete path", async () => {
    emulator.faults.route({
      path: /\/issues\/\d+\/comments$/,
      type: "rate-limit",
      status: 429,
      retryAfter: 7,
    });
    await emulator.as("alice").openPullRequest({ head: "f", files: { "x.txt": "x\n" } });
    const response = await fetch(`${emulator.url}/repos/acme/widgets/issues/1/comments`, {
      method: "POST",
      headers: { authorization: "token x", "content-type": "application/json" },
      body: JSON.stringify({ body: "hi" }),
    });
    assert.equal(response.status, 429);
    assert.equal(response.headers.get("retry-after"), "7");
    assert.equal(emulator.state.comments.length, 0, "a refused write changes nothing");
  });

  it("obeys a rate limit through Probot's throttling plugin, which waits retry-after and then succeeds", async () => {
    const Throttled = ProbotOctokit.defaults({ retry: { enabled: false } });
    const limited: number[] = [];
    const throttled = new Throttled({
      auth: { token: APP_JWT },
      baseUrl: emulator.url,
      throttle: {
        onRateLimit: () => false,
        onSecondaryRateLimit: (retryAfter: number) => {
          limited.push(retryAfter);
          return limited.length <= 1;
        },
      },
    });
    emulator.faults.route({
      method: "GET",
      path: "/repos/{owner}/{repo}/installation",
      type: "rate-limit",
      status: 403,
      retryAfter: 1,
    });
    const { data } = await throttled.rest.apps.getRepoInstallation(repo);
    assert.equal(data.id, 4242);
    assert.deepEqual(limited, [1]);
  });

  it("kills a connection before the request is done (nothing happens) or after (done, never answered)", async () => {
    const fired: string[] = [];
    const post = (path: string, body: unknown) =>
      fetch(`${emulator.url}${path}`, {
        method: "POST",
        headers: { authorization: "token x", "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const main = await emulator.repo().git.readBranch("main");
    const ref = (name: string) => ({ ref: `refs/heads/${name}`, sha: main });
    emulator.faults.route({
      method: "POST",
      path: "/repos/{owner}/{repo}/git/refs",
      type: "disconnect",
      when: "before",
      onFire: () => void fired.push("before"),
    });
    await assert.rejects(post("/repos/acme/widgets/git/refs", ref("never")));
    emulator.faults.route({
      method: "POST",
      path: "/repos/{owner}/{repo}/git/refs",
      type: "disconnect",
      when: "after",
      onFire: () => void fired.push("after"),
    });
    await assert.rejects(post("/repos/acme/widgets/git/refs", ref("done")));
    assert.deepEqual(fired, ["before", "after"]);
    assert.equal(await emulator.repo().git.readBranch("never"), null);
    assert.equal(await emulator.repo().git.readBranch("done"), main);
    assert.deepEqual(
      emulator.requests.slice(-2).map((r) => r.status),
      [499, 201],
    );
  });

  it("serves the REST API under GitHub Enterprise Server's /api/v3 prefix too", async () => {
    const prefixed = new ProbotOctokit({ auth: { token: "x" }, baseUrl: `${emulator.url}/api/v3` });
    assert.equal((await prefixed.rest.repos.get(repo)).data.full_name, "acme/widgets");
    assert.equal(emulator.requests.at(-1)?.path, "/repos/acme/widgets");
    emulator.assertNoViolations();
  });

  it("adds latency and still answers for real", async () => {
    emulator.faults.route({ method: "GET", path: "/repos/{owner}/{repo}", type: "latency", ms: 50 });
    assert.equal((await octokit.rest.repos.get(repo)).status, 200);
    assert.deepEqual(emulator.faults.fired.at(-1), {
      kind: "route",
      method: "GET",
      path: "/repos/acme/widgets",
      effect: "latency",
    });
  });

  it("expires a download URL after a minute and an artifact after its retention, by the emulator's clock", async () => {
    const workflow = "on: workflow_dispatch\njobs: {}\n";
    await emulator.as("alice").push("main", { ".github/workflows/w.yml": workflow });
    await octokit.rest.actions.createWorkflowDispatch({ ...repo, workflow_id: "w.yml", ref: "main" });
    const run = emulator.state.runs.at(-1)!;
    const artifact = emulator.addArtifact(
      run.id,
      "loom-heartbeat-1",
      { "heartbeat.json": "{}" },
      { retentionDays: 1 },
    );
    const zipUrl = `${emulator.url}/repos/acme/widgets/actions/artifacts/${artifact.id}/zip`;
    const headers = { authorization: "token x" };
    const location = (await fetch(zipUrl, { headers, redirect: "manual" })).headers.get("location")!;
    clock += 61_000;
    assert.equal((await fetch(location)).status, 410);
    clock += 86_400_000;
    assert.equal((await fetch(zipUrl, { headers, redirect: "manual" })).status, 410);
    const { data } = await octokit.rest.actions.listWorkflowRunArtifacts({ ...repo, run_id: run.id });
    assert.equal(data.artifacts[0]?.expired, true);
    emulator.assertNoViolations();
  });
});

describe("requests GitHub would not accept", () => {
  let emulator: Emulator;
  before(async () => {
    emulator = await startEmulator();
  });
  after(async () => {
    await emulator.close();
  });

  it("answers an unknown route 404 and records it as a violation", async () => {
    const response = await fetch(`${emulator.url}/repos/acme/widgets/no-such-thing`, {
      headers: { authorization: "token x" },
    });
    assert.equal(response.status, 404);
    assert.equal(emulator.violations[0]?.kind, "unknown-route");
    assert.throws(() => emulator.assertNoViolations(), /no-such-thing/);
  });

  it("answers a request whose body breaks the OpenAPI schema 422 and records it", async () => {
    const octokit = createClient(emulator);
    const failure = await statusOf(
      octokit.request("POST /repos/{owner}/{repo}/git/refs", { ...repo, ref: "refs/heads/x" } as never),
    );
    assert.equal(failure?.status, 422);
    const violation = emulator.violations.at(-1);
    assert.equal(violation?.kind, "invalid");
    assert.match(violation?.errors.join("\n") ?? "", /sha/);
  });

  it("records a valid GitHub operation the emulator does not implement", async () => {
    const octokit = createClient(emulator);
    assert.equal((await statusOf(octokit.rest.repos.listForOrg({ org: "acme" })))?.status, 404);
    assert.equal(emulator.violations.at(-1)?.kind, "unimplemented");
  });
});

describe("scripted faults on webhooks", () => {
  let emulator: Emulator;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  before(async () => {
    receiver = await startWebhookReceiver();
    emulator = await startEmulator({ webhookUrl: receiver.url, permissions: { alice: "write" } });
    await emulator.as("alice").openPullRequest({ head: "f", files: { "x.txt": "x\n" } });
    await emulator.settle();
    receiver.received.length = 0;
  });
  after(async () => {
    await emulator.close();
    await receiver.close();
  });

  it("drops, duplicates (same delivery id) and reorders deliveries as scripted", async () => {
    const alice = emulator.as("alice");
    emulator.faults.webhook({ event: "issue_comment", effect: "drop" });
    emulator.faults.webhook({ event: "pull_request", action: "labeled", effect: "duplicate" });
    emulator.faults.webhook({ event: "pull_request", action: "unlabeled", effect: "reorder" });
    await alice.comment(1, "dropped");
    alice.createLabel("loom:hold");
    await alice.addLabel(1, "loom:hold");
    await alice.removeLabel(1, "loom:hold");
    await alice.comment(1, "after the reorder");
    await emulator.settle();
    const seen = receiver.received.map((r) => `${r.event}.${String(r.payload["action"])}`);
    assert.deepEqual(seen, [
      "pull_request.labeled",
      "pull_request.labeled",
      "issue_comment.created",
      "pull_request.unlabeled",
    ]);
    assert.equal(receiver.received[0]?.delivery, receiver.received[1]?.delivery);
    assert.equal(emulator.deliveries.filter((d) => d.dropped).length, 1);
    assert.deepEqual(
      emulator.faults.fired.map((f) => (f.kind === "webhook" ? f.effect : f.effect)),
      ["drop", "duplicate", "reorder"],
    );
  });
});
