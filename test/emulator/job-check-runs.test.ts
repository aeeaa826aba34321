import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createClient, statusOf } from "./emulator-fixture.ts";
import { startEmulator, type Emulator } from "./start-emulator.ts";
import { startWebhookReceiver } from "./start-webhook-receiver.ts";

/*
 * A job's GITHUB_TOKEN writes check runs only when its job holds `checks: write` (GitHub: 403
 * "Resource not accessible by integration"); the runs it creates belong to GitHub Actions, GitHub
 * reports them to loom's App (an App with checks permission gets every app's check_run events),
 * and only the app that created a check run may update it.
 */
describe("check runs a workflow job creates with its GITHUB_TOKEN", () => {
  let emulator: Emulator;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  before(async () => {
    receiver = await startWebhookReceiver();
    emulator = await startEmulator({
      webhookUrl: receiver.url,
      repos: [
        {
          owner: "acme",
          name: "widgets",
          files: { ".github/workflows/w.yml": "on: workflow_dispatch\njobs: {}\n" },
        },
      ],
    });
  });
  after(async () => {
    await emulator.close();
    await receiver.close();
  });

  async function jobClient(permissions?: Record<string, string>) {
    await createClient(emulator).rest.actions.createWorkflowDispatch({
      owner: "acme",
      repo: "widgets",
      workflow_id: "w.yml",
      ref: "main",
    });
    const run = emulator.state.runs.at(-1)!;
    const env = emulator.runnerEnv(run.id, permissions);
    return createClient(emulator, env["GITHUB_TOKEN"] ?? "");
  }

  function headSha(): string {
    const sha = emulator.state.runs.at(-1)?.headSha;
    assert.ok(sha);
    return sha;
  }

  it("are refused without checks: write", async () => {
    const cases: (Record<string, string> | undefined)[] = [
      undefined,
      { contents: "write" },
      { checks: "read" },
    ];
    for (const permissions of cases) {
      const job = await jobClient(permissions);
      const refused = await statusOf(
        job.rest.checks.create({ owner: "acme", repo: "widgets", name: "loom result", head_sha: headSha() }),
      );
      assert.deepEqual(refused, { status: 403, message: "Resource not accessible by integration" });
    }
  });

  it("with checks: write are GitHub Actions' runs, reported to the App with their text, and the App may not update them", async () => {
    const job = await jobClient({ contents: "write", checks: "write" });
    receiver.received.length = 0;
    const { data } = await job.rest.checks.create({
      owner: "acme",
      repo: "widgets",
      name: "loom result",
      head_sha: headSha(),
      status: "completed",
      conclusion: "neutral",
      output: { title: "t", summary: "s", text: '{"version":1}' },
    });
    assert.equal(data.app?.slug, "github-actions");
    await emulator.settle();
    const created = receiver.received.find(
      (r) => r.event === "check_run" && r.payload["action"] === "created",
    );
    assert.ok(created, "the App got check_run.created");
    const run = created.payload["check_run"] as { app: { slug: string }; output: { text: string } };
    assert.equal(run.app.slug, "github-actions");
    assert.equal(run.output.text, '{"version":1}');
    const update = await statusOf(
      createClient(emulator).rest.checks.update({
        owner: "acme",
        repo: "widgets",
        check_run_id: data.id,
        name: "forged",
      }),
    );
    assert.equal(update?.status, 403);
  });
});
