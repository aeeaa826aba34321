import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { tmpdir } from "node:os";
import type { RecordedRequest } from "../emulator/handle-request.ts";
import type { Emulator } from "../emulator/start-emulator.ts";
import { LOOM_RELEASES } from "../../src/release/loom-releases.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";
import {
  freePort,
  freshCheckout,
  npmStart,
  startQuickStartGitHub,
  stop,
  waitFor,
  waitForCheckRuns,
  type NpmStart,
} from "./npm-start.ts";
import { createStageRunner, describeRunLogs, type StageRunner } from "./runner/create-stage-runner.ts";
import { DIAMOND_PLAN } from "./sample-plans.ts";
import type { PullRecord } from "./e2e-requests.ts";

/**
 * README, "The two commands" and "Quick start", done as a newcomer does them: `npm start` in a
 * checkout with no credentials, the setup page, GitHub's manifest flow (played by the emulator as
 * GitHub Enterprise Server, the one thing the `.env` says before the flow), then — with no restart
 * and no further step — a working App: a signed `pull_request` webhook for a plan, sent by the
 * emulator to the webhook URL the manifest registered, becomes check runs. Then `npm start` again,
 * now from the `.env` the flow wrote (the restart that used to leave the App inert).
 */

/** The plan's check run and its root stage's (the others get theirs when they start). */
const STAGE_CHECKS = ["loom: PLAN-diamond", "loom: a"];

describe("README quick start: npm start, the setup page, then a working App", { timeout: 280_000 }, () => {
  let emulator: Emulator;
  let checkout: string;
  let port: number;
  let first: NpmStart | null = null;
  let second: NpmStart | null = null;
  let runner: StageRunner | null = null;
  let runnerDir = "";

  before(async () => {
    // The caller a newcomer copies from README (test/workflows/readme-caller.test.ts: examples/loom.yml).
    emulator = await startQuickStartGitHub();
    checkout = await freshCheckout();
    port = await freePort();
    const github = new URL(emulator.url);
    // The newcomer's only settings before the flow: where GitHub is (here: the emulator as GitHub
    // Enterprise Server) and where to listen. Everything else comes from the setup page.
    await writeFile(
      path.join(checkout, ".env"),
      [
        "# my loom",
        `GHE_HOST=${github.host}`,
        "GHE_PROTOCOL=http",
        "HOST=127.0.0.1",
        `PORT=${port}`,
        "NO_SMEE_SETUP=true",
        "",
      ].join("\n"),
    );
  });

  after(async () => {
    runner?.stopAll();
    if (runnerDir) await rm(runnerDir, { recursive: true, force: true });
    if (first) await stop(first);
    if (second) await stop(second);
    await emulator?.close();
    if (checkout) await rm(checkout, { recursive: true, force: true });
  });

  it("registers the App from the manifest and serves webhooks at once, without a restart", async () => {
    first = npmStart(checkout);
    const base = `http://127.0.0.1:${port}`;
    const root = await waitFor(`${base}/`, (status) => status === 302, first);
    assert.equal(root.headers.get("location"), "/probot");
    const page = await (await waitFor(`${base}/probot`, (status) => status === 200, first)).text();
    const manifestText = /name="manifest" id="manifest" value='([^']*)'/.exec(page)?.[1];
    assert.ok(manifestText, "the setup page carries the manifest");
    const manifest = JSON.parse(manifestText) as {
      name: string;
      hook_attributes: { url: string };
      redirect_url: string;
      default_events: string[];
      default_permissions: Record<string, string>;
    };
    assert.equal(manifest.name, "loom");
    assert.deepEqual(manifest.default_events, ["pull_request", "issue_comment", "check_run", "workflow_run"]);
    assert.equal(manifest.default_permissions["checks"], "write");
    assert.equal(manifest.redirect_url, `${base}/probot/setup`);

    // The person clicks "Register GitHub App", then "Create" on GitHub; GitHub redirects back.
    const { redirectUrl } = emulator.registerApp(manifestText);
    const redirected = await fetch(redirectUrl, { redirect: "manual" });
    assert.equal(redirected.status, 302);
    assert.match(redirected.headers.get("location") ?? "", /\/apps\/loom\/installations\/new$/);

    const env = await readFile(path.join(checkout, ".env"), "utf8");
    assert.match(env, /^# my loom$/m, "what the person wrote in .env stays");
    assert.match(env, /^APP_ID=\d+$/m);
    assert.match(env, /^WEBHOOK_SECRET=[0-9a-f]{40}$/m);
    assert.match(env, /^PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\\n/m);
    assert.equal((await stat(path.join(checkout, ".env"))).mode & 0o777, 0o600, ".env holds the private key");

    // No restart: the same process now serves the App on the same port.
    await waitFor(`${base}/healthz`, (status) => status === 200, first);

    // The emulator sends the signed webhook to the URL the manifest registered.
    const pull = await emulator.as("alice").openPullRequest({
      head: "plan-diamond",
      title: "Plan: diamond",
      files: { [DIAMOND_PLAN.path]: DIAMOND_PLAN.text },
    });
    await waitForCheckRuns(emulator, pull, STAGE_CHECKS, first);
    const attempts = emulator.deliveries.filter((d) => d.event === "pull_request").flatMap((d) => d.attempts);
    assert.ok(attempts.length > 0);
    assert.ok(
      attempts.every((a) => a.url === manifest.hook_attributes.url && a.status === 200),
      "accepted at the registered URL",
    );
    emulator.assertNoViolations();
  });

  it("starts again from the .env the setup page wrote", async () => {
    assert.ok(first, "the first start ran");
    await stop(first);
    second = npmStart(checkout);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/healthz`, (status) => status === 200, second);
    const pull = await emulator.as("alice").openPullRequest({
      head: "plan-diamond-again",
      title: "Plan: diamond again",
      files: { "doc/plans/PLAN-diamond.md": DIAMOND_PLAN.text },
    });
    await waitForCheckRuns(emulator, pull, STAGE_CHECKS, second);
    emulator.assertNoViolations();
  });

  /**
   * Opens a one-stage plan `PLAN-<name>` whose session writes `only.txt` with `content`, and waits
   * for the plan's check run to pass on the pull request's head (failing on the first failed run,
   * with its log). Runs go through the caller on the repository's default branch, as GitHub runs
   * it: the stage workflow and action come from the commit the caller pins.
   */
  async function runPlanToGreen(
    name: string,
    content: string,
  ): Promise<{ pull: PullRecord; requests: RecordedRequest[] }> {
    assert.ok(second, "the App runs from its .env");
    runner?.stopAll();
    runnerDir ||= await mkdtemp(path.join(tmpdir(), "loom-readme-"));
    const completed = new Map<number, string>();
    const from = emulator.requests.length;
    const current = createStageRunner({
      emulator,
      workDir: path.join(runnerDir, name),
      source: "pinned",
      script: scriptStages({ only: writeFiles({ "only.txt": content }) }),
      onEvent: (event) => {
        if (event.type === "run.completed") completed.set(event.runId, event.conclusion);
      },
    });
    runner = current;
    emulator.setRunner(current);
    const planId = `PLAN-${name}`;
    const plan = planText(
      name,
      '- id: only\n  name: Only\n  description: Write only.txt\n  acceptance: ["test -f only.txt"]',
    );
    const pull = await emulator.as("alice").openPullRequest({
      head: `plan-${name}`,
      title: `Plan: ${name}`,
      files: { [`doc/plans/${planId}.md`]: plan },
    });
    const server = second;
    const ended = await waitUntil(async () => {
      const runs = emulator.state.runs.filter((r) => r.inputs["plan_id"] === planId);
      const failed = runs.find((r) => completed.has(r.id) && completed.get(r.id) !== "success");
      if (failed) return `run ${failed.id} ended ${completed.get(failed.id)}`;
      const tip = (await emulator.repo().git.readBranch(pull.headRef)) ?? pull.headSha;
      const check = emulator.state.checkRuns.find(
        (r) => r.headSha === tip && r.name === `loom: ${planId}` && r.status === "completed",
      );
      return check ? `plan ${check.conclusion ?? ""}` : undefined;
    }, server);
    const failedRun = Number(/^run (\d+)/.exec(ended)?.[1] ?? 0);
    assert.equal(ended, "plan success", describeRunLogs(current, failedRun, 12));
    assert.equal(
      await emulator
        .repo()
        .git.readBlob(pull.headRef, "only.txt")
        .then((b) => b?.toString("utf8")),
      content,
    );
    return { pull, requests: emulator.requests.slice(from) };
  }

  it("runs a plan to green through README's caller as written, with the loom release it pins (its stage workflow and action from that commit)", async () => {
    // Pinned: loom-dev/loom/…@<sha> comes from this repository's history at that commit, as GitHub
    // fetches it for a user's copy; actions/checkout through its stand-in, Claude Code from the tool
    // cache.
    const { pull, requests } = await runPlanToGreen("readme", "from the README caller\n");
    // README pins the newest release, whose publish job creates the stage branch: the App writes
    // no ref before a stage's first run.
    assert.deepEqual(createdRefs(requests, pull.number), []);
  });

  it("serves a caller that still pins loom 0.3.0 (examples/loom.yml as released): the App creates each stage branch first, and the plan's check run names the pin to move to", async () => {
    // The caller examples/loom.yml was when 0.3.0 was released (44781f1): its jobs check out the
    // stage branch, so without the App creating it the first run fails at checkout ("A branch or
    // tag with the name 'loom/pr-…' could not be found").
    const released = execFileSync("git", ["show", "44781f1:examples/loom.yml"], {
      cwd: path.join(import.meta.dirname, "..", ".."),
      encoding: "utf8",
    });
    assert.match(released, /loom-stage\.yml@552299ccaafc3d22a4d460b024aac4dee9b1b15f/);
    await emulator.as("alice").push("main", { ".github/workflows/loom.yml": released });
    const { pull, requests } = await runPlanToGreen("old-pin", "from the 0.3.0 caller\n");
    const branch = `refs/heads/loom/pr-${pull.number}/PLAN-old-pin/only`;
    const created = createdRefs(requests, pull.number);
    assert.deepEqual(
      created.map((c) => c.ref),
      [branch],
      "the App created the stage branch",
    );
    const dispatch = requests.findIndex((r) => r.operationId === "actions/create-workflow-dispatch");
    assert.ok((created[0]?.index ?? Infinity) < dispatch, "before the stage's first run was dispatched");
    const newest = LOOM_RELEASES.at(-1);
    const check = emulator.state.checkRuns.findLast((r) => r.name === "loom: PLAN-old-pin");
    const summary = check?.output.summary ?? "";
    assert.ok(summary.includes("pins loom 0.3.0"), summary);
    assert.ok(summary.includes(`loom-stage.yml@${newest?.sha ?? ""}`), summary);
  });
});

/** Git refs loom's bot created for pull request `pull`'s stage branches, with their request index. */
function createdRefs(requests: readonly RecordedRequest[], pull: number): { ref: string; index: number }[] {
  return requests.flatMap((request, index) => {
    const ref = (request.body as { ref?: unknown } | null)?.ref;
    return request.operationId === "git/create-ref" &&
      request.login === "loom[bot]" &&
      request.status === 201 &&
      typeof ref === "string" &&
      ref.startsWith(`refs/heads/loom/pr-${pull}/`)
      ? [{ ref, index }]
      : [];
  });
}

/** Polls `check` (every 250 ms, at most 150 s) until it returns a value. */
async function waitUntil(check: () => Promise<string | undefined>, server: NpmStart): Promise<string> {
  for (let round = 0; round < 600; round++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return assert.fail(`the plan neither ended nor failed a run in time:\n${server.output().slice(-3000)}`);
}
