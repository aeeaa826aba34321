import assert from "node:assert/strict";
import { test } from "node:test";
import { ProbotOctokit } from "probot";
import { mockGitHub } from "../support/github-mock.ts";
import { validateRequest } from "../support/openapi.ts";

const TestOctokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });
const octokit = () => new TestOctokit({ auth: "test-token" });

test("validateRequest accepts a request that fits GitHub's OpenAPI description", () => {
  const result = validateRequest({
    method: "POST",
    path: "/repos/o/r/actions/workflows/loom.yml/dispatches",
    body: { ref: "main", inputs: { key: "k" }, return_run_details: true },
  });
  assert.deepEqual(result, { ok: true, operationId: "actions/create-workflow-dispatch" });
});

const invalid = [
  {
    name: "unknown path",
    method: "GET",
    path: "/repos/o/r/nonsense",
    body: undefined,
    want: /no path template/,
  },
  {
    name: "wrong method",
    method: "DELETE",
    path: "/repos/o/r/merges",
    body: undefined,
    want: /no DELETE operation/,
  },
  {
    name: "non-integer path parameter",
    method: "POST",
    path: "/repos/o/r/actions/runs/abc/cancel",
    body: undefined,
    want: /run_id=abc is not an integer/,
  },
  {
    name: "unknown query parameter",
    method: "GET",
    path: "/repos/o/r/commits/abc/check-runs?nope=1",
    body: undefined,
    want: /unknown query parameter nope/,
  },
  {
    name: "missing required body field",
    method: "POST",
    path: "/repos/o/r/merges",
    body: { base: "main" },
    want: /must have required property 'head'/,
  },
  {
    name: "wrong body type",
    method: "POST",
    path: "/repos/o/r/git/refs",
    body: { ref: "refs/heads/x", sha: 5 },
    want: /body\/sha must be string/,
  },
  {
    name: "bad enum in body",
    method: "POST",
    path: "/repos/o/r/check-runs",
    body: { name: "n", head_sha: "a", conclusion: "great" },
    want: /conclusion must be equal to one of/,
  },
] as const;

for (const c of invalid) {
  test(`validateRequest refuses a request with ${c.name}`, () => {
    const result = validateRequest({ method: c.method, path: c.path, body: c.body });
    assert.equal(result.ok, false);
    assert.match(result.ok ? "" : result.errors.join("\n"), c.want);
  });
}

test("mockGitHub records and validates the requests an Octokit client makes", async () => {
  const gh = mockGitHub();
  gh.api.post("/repos/o/r/git/refs").reply(201, { ref: "refs/heads/x", object: { sha: "abc" } });
  await octokit().rest.git.createRef({ owner: "o", repo: "r", ref: "refs/heads/x", sha: "abc" });
  assert.equal(gh.requests.length, 1);
  assert.deepEqual(gh.find("POST", "/repos/o/r/git/refs")[0]?.body, { ref: "refs/heads/x", sha: "abc" });
  gh.done();
});

test("mockGitHub fails done() on a request that breaks the OpenAPI description", async () => {
  const gh = mockGitHub();
  gh.api.post("/repos/o/r/git/refs").reply(201, {});
  await octokit().request("POST /repos/{owner}/{repo}/git/refs", { owner: "o", repo: "r", ref: 7 } as never);
  assert.throws(() => gh.done(), /OpenAPI/);
});

test("mockGitHub fails done() on a mock nobody used", () => {
  const gh = mockGitHub();
  gh.api.get("/repos/o/r").reply(200, {});
  assert.throws(() => gh.done(), /mocks never used/);
});

test("mockGitHub refuses real connections and reports the unanswered request", async () => {
  const gh = mockGitHub();
  gh.api.get("/repos/o/r").reply(200, {});
  await assert.rejects(octokit().request("GET /repos/{owner}/{repo}/branches", { owner: "o", repo: "r" }));
  await octokit().request("GET /repos/{owner}/{repo}", { owner: "o", repo: "r" });
  assert.throws(() => gh.done(), /no mock answered/);
});
