import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { verify } from "@octokit/webhooks-methods";
import { createNodeMiddleware, Probot, ProbotOctokit } from "probot";
import { createClient, type Client } from "./emulator-fixture.ts";
import { startEmulator, type Emulator } from "./start-emulator.ts";
import { startWebhookReceiver, type Received } from "./start-webhook-receiver.ts";
import { validateWebhook } from "./validate-response.ts";

const SECRET = "webhook-secret";
const repo = { owner: "acme", repo: "widgets" };

function actionsOf(received: Received[]): string[] {
  return received.map((r) => `${r.event}.${String(r.payload["action"])}`);
}

describe("webhooks the emulator sends", () => {
  let emulator: Emulator;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let octokit: Client;
  before(async () => {
    receiver = await startWebhookReceiver();
    emulator = await startEmulator({
      webhookUrl: receiver.url,
      webhookSecret: SECRET,
      permissions: { alice: "write" },
    });
    octokit = createClient(emulator);
  });
  after(async () => {
    await emulator.close();
    await receiver.close();
  });

  it("signs every delivery with the secret, gives each its own delivery id, and shapes the payload like GitHub", async () => {
    const pull = await emulator
      .as("alice")
      .openPullRequest({ head: "feature", title: "Plan", files: { "doc/plans/PLAN-x.md": "# Plan: x\n" } });
    await emulator.settle();
    const opened = receiver.received.find((r) => r.event === "pull_request")!;
    assert.equal(await verify(SECRET, opened.body, opened.signature), true);
    assert.equal(await verify("another secret", opened.body, opened.signature), false);
    const payload = opened.payload as {
      action: string;
      number: number;
      pull_request: { head: { sha: string; ref: string } };
      repository: { full_name: string };
      installation: { id: number };
      sender: { login: string };
    };
    assert.equal(payload.action, "opened");
    assert.equal(payload.number, pull.number);
    assert.equal(payload.pull_request.head.ref, "feature");
    assert.equal(payload.pull_request.head.sha, await emulator.repo().git.readBranch("feature"));
    assert.equal(payload.repository.full_name, "acme/widgets");
    assert.equal(payload.installation.id, 4242);
    assert.equal(payload.sender.login, "alice");
    const ids = receiver.received.map((r) => r.delivery);
    assert.equal(new Set(ids).size, ids.length);
  });

  it("fires synchronize, issue_comment, labeled/unlabeled and check_run events for what people and the API do", async () => {
    receiver.received.length = 0;
    const alice = emulator.as("alice");
    const before = await emulator.repo().git.readBranch("feature");
    const after = await alice.push("feature", { "more.txt": "x\n" });
    await alice.comment(1, "/loom status");
    alice.createLabel("loom:hold");
    await alice.addLabel(1, "loom:hold");
    await alice.removeLabel(1, "loom:hold");
    const { data: check } = await octokit.rest.checks.create({
      ...repo,
      name: "loom: a",
      head_sha: after,
      external_id: "PLAN-x:a",
      status: "completed",
      conclusion: "failure",
      actions: [{ label: "Retry", description: "Run the stage again", identifier: "retry" }],
    });
    await alice.clickButton(check.id, "retry");
    await alice.rerequest(check.id);
    await emulator.settle();
    assert.deepEqual(actionsOf(receiver.received), [
      "pull_request.synchronize",
      "issue_comment.created",
      "pull_request.labeled",
      "pull_request.unlabeled",
      "check_run.created",
      "check_run.completed",
      "check_run.requested_action",
      "check_run.rerequested",
    ]);
    const sync = receiver.received[0]!.payload;
    assert.deepEqual([sync["before"], sync["after"]], [before, after]);
    const clicked = receiver.received[6]!.payload as {
      requested_action: { identifier: string };
      check_run: { external_id: string; pull_requests: { number: number }[]; actions: unknown[] };
    };
    assert.equal(clicked.requested_action.identifier, "retry");
    assert.equal(clicked.check_run.external_id, "PLAN-x:a");
    assert.deepEqual(
      clicked.check_run.pull_requests.map((p) => p.number),
      [1],
    );
    assert.equal(clicked.check_run.actions.length, 1);
    const labeled = receiver.received[2]!.payload as { label: { name: string } };
    assert.equal(labeled.label.name, "loom:hold");
  });

  it("keeps one check suite per app and commit, and sends Re-run checks as check_suite.rerequested shaped as GitHub's description says", async () => {
    receiver.received.length = 0;
    const head = (await emulator.repo().git.readBranch("feature"))!;
    const create = async (name: string, conclusion: "success" | "failure", sha = head) =>
      (await octokit.rest.checks.create({ ...repo, name, head_sha: sha, status: "completed", conclusion }))
        .data;
    const first = await create("loom: b", "success");
    const second = await create("loom: c", "failure");
    const elsewhere = await create("loom: d", "failure", (await emulator.repo().git.resolve("main"))!);
    assert.equal(first.check_suite?.id, second.check_suite?.id, "one suite for the app's runs on a commit");
    assert.notEqual(first.check_suite?.id, elsewhere.check_suite?.id);
    await assert.rejects(emulator.as("bob").rerunChecks(1), /bob \(read\) cannot re-run checks/);
    await assert.rejects(emulator.as("bob").rerequest(second.id), /cannot re-run checks/);
    assert.equal(await emulator.as("alice").rerunChecks(1, { failedOnly: true }), 1);
    await emulator.settle();
    const suites = receiver.received.filter((r) => r.event === "check_suite");
    assert.deepEqual(actionsOf(suites), ["check_suite.rerequested"]);
    const payload = suites[0]!.payload;
    // GitHub's own description of the webhook (x-webhooks check-suite-rerequested).
    assert.deepEqual(validateWebhook("check_suite", "rerequested", payload), []);
    const suite = payload["check_suite"] as {
      id: number;
      head_sha: string;
      head_branch: string | null;
      status: string;
      conclusion: string | null;
      pull_requests: { number: number }[];
      app: { slug: string };
    };
    assert.equal(suite.id, second.check_suite?.id);
    assert.equal(suite.head_sha, head);
    assert.equal(suite.head_branch, "feature");
    assert.deepEqual([suite.status, suite.conclusion], ["queued", null], "GitHub resets a rerequested suite");
    assert.deepEqual(
      suite.pull_requests.map((p) => p.number),
      [1],
    );
    assert.equal(suite.app.slug, "loom");
    assert.equal((payload["sender"] as { login: string }).login, "alice");
    for (const received of receiver.received.filter((r) => r.event === "check_run"))
      assert.deepEqual(
        validateWebhook("check_run", String(received.payload["action"]), received.payload),
        [],
      );
  });
});

describe("a real Probot app over HTTP talking to the emulator", () => {
  let emulator: Emulator;
  let server: Server;
  before(async () => {
    emulator = await startEmulator({ webhookSecret: SECRET, permissions: { alice: "write" } });
    const { privateKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
    const probot = new Probot({
      appId: 1,
      privateKey,
      secret: SECRET,
      baseUrl: emulator.url,
      logLevel: "fatal",
      Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
    });
    const middleware = await createNodeMiddleware(
      (app) => {
        app.on("issue_comment.created", async (context) => {
          const { data } = await context.octokit.rest.repos.getCollaboratorPermissionLevel(
            context.repo({ username: context.payload.sender.login }),
          );
          const content = data.permission === "write" || data.permission === "admin" ? "+1" : "-1";
          await context.octokit.rest.reactions.createForIssueComment(
            context.repo({ comment_id: context.payload.comment.id, content }),
          );
        });
      },
      { probot },
    );
    server = createServer((req, res) => void middleware(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    emulator.setWebhookTarget(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`,
    );
  });
  after(async () => {
    await emulator.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("receives the signed webhook, gets an installation token and answers through the API", async () => {
    await emulator.as("alice").openPullRequest({ head: "feature", files: { "a.txt": "a\n" } });
    const writer = await emulator.as("alice").comment(1, "/loom retry a");
    const reader = await emulator.as("bob").comment(1, "/loom retry a");
    await emulator.settle();
    assert.deepEqual(
      emulator.deliveries.map((d) => d.attempts.map((a) => a.status)),
      [[200], [200], [200]],
    );
    const reactions = emulator.state.reactions.map((r) => [r.commentId, r.content, r.user]);
    assert.deepEqual(reactions, [
      [writer.id, "+1", "loom[bot]"],
      [reader.id, "-1", "loom[bot]"],
    ]);
    assert.ok(emulator.requests.some((r) => r.operationId === "apps/create-installation-access-token"));
    emulator.assertNoViolations();
  });
});

describe("webhooks to several app instances behind a load balancer", () => {
  it("sends each delivery to the next instance and duplicates every n-th to the one after, same id", async () => {
    const first = await startWebhookReceiver();
    const second = await startWebhookReceiver();
    const emulator = await startEmulator({ webhookSecret: SECRET });
    try {
      emulator.setWebhookTarget([first.url, second.url], SECRET, { duplicateEvery: 2 });
      await emulator.as("alice").openPullRequest({ head: "feature", files: { "a.txt": "a\n" } });
      for (const text of ["one", "two", "three"]) await emulator.as("alice").comment(1, text);
      await emulator.settle();
      const ids = emulator.deliveries.map((d) => d.id);
      assert.equal(ids.length, 4);
      assert.deepEqual(
        first.received.map((r) => r.delivery),
        [ids[0], ids[1], ids[2], ids[3]],
      );
      assert.deepEqual(
        second.received.map((r) => r.delivery),
        [ids[1], ids[3]],
      );
      for (const r of second.received) assert.equal(await verify(SECRET, r.body, r.signature), true);
    } finally {
      await emulator.close();
      await first.close();
      await second.close();
    }
  });
});
