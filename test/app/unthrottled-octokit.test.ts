import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Probot, ProbotOctokit } from "probot";
import { UnthrottledOctokit } from "../../app/github/unthrottled-octokit.ts";
import { createPrivateKey } from "../support/create-private-key.ts";
import { startEmulator, type Emulator } from "../emulator/start-emulator.ts";

const repo = { owner: "acme", repo: "widgets" };

/** An installation client as the app gets it (`probot.auth(id)`), with the given Octokit class. */
async function installationClient(emulator: Emulator, Octokit: typeof ProbotOctokit) {
  const probot = new Probot({ appId: 1, privateKey: createPrivateKey(), baseUrl: emulator.url, Octokit });
  return probot.auth(4242);
}

describe("LOOM_GITHUB_THROTTLE=off (UnthrottledOctokit)", () => {
  let emulator: Emulator;
  before(async () => {
    emulator = await startEmulator();
  });
  after(async () => {
    await emulator.close();
  });

  const rateLimited = () =>
    emulator.faults.route({
      method: "GET",
      path: "/repos/{owner}/{repo}",
      type: "rate-limit",
      status: 403,
      resetInSeconds: 1,
    });

  it("Probot's default client paces itself: it waits out a rate limit and retries", async () => {
    const octokit = await installationClient(emulator, ProbotOctokit);
    rateLimited();
    assert.equal((await octokit.rest.repos.get(repo)).status, 200);
  });

  it("the unthrottled client, through Probot's own auth, leaves the rate limit to loom", async () => {
    const octokit = await installationClient(emulator, UnthrottledOctokit);
    rateLimited();
    await assert.rejects(octokit.rest.repos.get(repo), { status: 403 });
    assert.equal((await octokit.rest.repos.get(repo)).status, 200);
  });
});
