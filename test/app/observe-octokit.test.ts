import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { ProbotOctokit } from "probot";
import { createMetrics } from "../../app/metrics/create-metrics.ts";
import { observeOctokit } from "../../app/metrics/observe-octokit.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";

const TestOctokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });

let gh: GitHubMock | undefined;
afterEach(() => {
  gh?.cleanup();
  gh = undefined;
});

async function count(metrics: ReturnType<typeof createMetrics>, method: string, status: string) {
  const metric = await metrics.githubRequests.get();
  return (
    metric.values.find((v) => v.labels["method"] === method && v.labels["status"] === status)?.value ?? 0
  );
}

test("every GitHub request counts once by method and status class: a free 304, a 2xx, a 4xx error", async () => {
  gh = mockGitHub();
  const metrics = createMetrics({
    store: { countBacklog: () => Promise.resolve({ deliveries: 0, effects: 0, timers: 0 }) },
    defaultMetrics: false,
  });
  const octokit = observeOctokit(new TestOctokit({ auth: "t" }), metrics, "42");
  const run = "/repos/octo/repo/actions/runs/1";
  gh.api.get(run).reply(200, { id: 1 }, { etag: '"r1"', "x-ratelimit-remaining": "4990" });
  gh.api.get(run).matchHeader("if-none-match", '"r1"').reply(304, "", { "x-ratelimit-remaining": "4990" });
  gh.api
    .post("/repos/octo/repo/issues/1/comments")
    .reply(201, { id: 9 }, { "x-ratelimit-remaining": "4989" });
  gh.api.get("/repos/octo/repo/pulls/404").reply(404, { message: "Not Found" });

  await octokit.request(`GET ${run}`);
  await assert.rejects(octokit.request(`GET ${run}`, { headers: { "if-none-match": '"r1"' } }), {
    status: 304,
  });
  await octokit.request("POST /repos/octo/repo/issues/1/comments", { body: "hi" });
  await assert.rejects(octokit.request("GET /repos/octo/repo/pulls/404"), { status: 404 });

  assert.equal(await count(metrics, "GET", "2xx"), 1);
  assert.equal(await count(metrics, "GET", "3xx"), 1, "the 304 counts as 3xx");
  assert.equal(await count(metrics, "POST", "2xx"), 1);
  assert.equal(await count(metrics, "GET", "4xx"), 1);
  const remaining = await metrics.rateLimitRemaining.get();
  assert.deepEqual(
    remaining.values.map((v) => [v.labels["installation"], v.value]),
    [["42", 4989]],
  );
  // The same instance hooked twice still counts each request once.
  observeOctokit(octokit, metrics, "42");
  gh.api.get(run).reply(200, { id: 1 });
  await octokit.request(`GET ${run}`);
  assert.equal(await count(metrics, "GET", "2xx"), 2);
  gh.done();
});
