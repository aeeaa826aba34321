import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { ProbotOctokit } from "probot";
import { assessPlanTrust } from "../../app/trust/assess-plan-trust.ts";
import { comesFromFork } from "../../app/trust/comes-from-fork.ts";
import { authorizeSender } from "../../app/trust/authorize-sender.ts";
import { readPermission } from "../../app/trust/read-permission.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";

const repo = { owner: "acme", repo: "widgets" };
const octokit = () =>
  new (ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }))({
    auth: "ghs_test",
  });
const path = (user: string) => `/repos/acme/widgets/collaborators/${encodeURIComponent(user)}/permission`;

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

test("the role comes from GitHub: built-in role names, custom roles by their base permission", async () => {
  gh = mockGitHub();
  gh.api.get(path("m")).reply(200, { permission: "write", role_name: "maintain", user: { login: "m" } });
  gh.api.get(path("t")).reply(200, { permission: "read", role_name: "triage", user: { login: "t" } });
  gh.api
    .get(path("c"))
    .reply(200, { permission: "write", role_name: "release-manager", user: { login: "c" } });
  assert.deepEqual(await readPermission(octokit(), repo, "m"), { ok: true, role: "maintain" });
  assert.deepEqual(await readPermission(octokit(), repo, "t"), { ok: true, role: "triage" });
  assert.deepEqual(await readPermission(octokit(), repo, "c"), { ok: true, role: "write" });
  gh.done();
});

test("GitHub's definite answer refuses: not a collaborator, another 4xx, an unexpected body", async () => {
  gh = mockGitHub();
  gh.api.get(path("ghost")).reply(404, { message: "Not Found" });
  gh.api.get(path("blocked")).reply(403, { message: "Forbidden" });
  gh.api.get(path("odd")).reply(200, { nothing: true });
  const reasons = {
    ghost: "could not read the permission of @ghost (HTTP 404)",
    blocked: "could not read the permission of @blocked (HTTP 403)",
    odd: "unexpected permission answer for @odd",
  };
  for (const [user, reason] of Object.entries(reasons)) {
    // The reason is what the refusal reply tells the person.
    assert.deepEqual(
      await authorizeSender(octokit(), repo, user, "write"),
      { authorized: false, reason },
      user,
    );
  }
  gh.done();
});

test("a lookup GitHub did not answer throws to be tried again, never refuses: 5xx, 429, a rate-limited 403", async () => {
  gh = mockGitHub();
  gh.api.get(path("flaky")).reply(502, { message: "Bad Gateway" });
  gh.api.get(path("busy")).reply(429, { message: "Too Many Requests" });
  gh.api
    .get(path("limited"))
    .reply(403, { message: "API rate limit exceeded" }, { "x-ratelimit-remaining": "0" });
  gh.api.get(path("later")).reply(403, { message: "secondary rate limit" }, { "retry-after": "60" });
  for (const user of ["flaky", "busy", "limited", "later"]) {
    await assert.rejects(
      authorizeSender(octokit(), repo, user, "write"),
      (error: Error & { retryable?: boolean }) =>
        error.retryable === true && error.message.startsWith(`reading the permission of @${user}: `),
      user,
    );
  }
  gh.done();
});

test("a permission GitHub names but loom does not know refuses, saying so", async () => {
  gh = mockGitHub();
  gh.api.get(path("x")).reply(200, { permission: "superuser", user: { login: "x" } });
  assert.deepEqual(await readPermission(octokit(), repo, "x"), {
    ok: false,
    reason: "unknown permission of @x",
  });
  gh.done();
});

test("bots are judged by their permission like anyone, never by name", async () => {
  gh = mockGitHub();
  gh.api.get(path("dependabot[bot]")).reply(404, { message: "Not Found" });
  gh.api
    .get(path("loom-app[bot]"))
    .reply(200, { permission: "read", role_name: "read", user: { login: "x" } });
  assert.equal((await authorizeSender(octokit(), repo, "dependabot[bot]", "write")).authorized, false);
  assert.equal((await authorizeSender(octokit(), repo, "loom-app[bot]", "write")).authorized, false);
  gh.done();
});

test("the minimum role is configurable", async () => {
  gh = mockGitHub();
  gh.api
    .get(path("w"))
    .times(2)
    .reply(200, { permission: "write", role_name: "write", user: { login: "w" } });
  assert.equal((await authorizeSender(octokit(), repo, "w", "write")).authorized, true);
  const refused = await authorizeSender(octokit(), repo, "w", "maintain");
  assert.deepEqual(refused, {
    authorized: false,
    reason: "@w has write access; loom needs maintain or above",
  });
  gh.done();
});

test("plans from forks wait without a lookup; plans by authors without write access wait too", async () => {
  gh = mockGitHub();
  gh.api.get(path("reader")).reply(200, { permission: "read", role_name: "read", user: { login: "reader" } });
  gh.api
    .get(path("writer"))
    .reply(200, { permission: "write", role_name: "write", user: { login: "writer" } });
  const fork = await assessPlanTrust(
    octokit(),
    repo,
    { author: "writer", fork: { repo: "writer/widgets" } },
    "write",
  );
  assert.deepEqual(fork, { trusted: false, reason: "the pull request comes from a fork" });
  const deleted = await assessPlanTrust(octokit(), repo, { author: "writer", fork: { repo: null } }, "write");
  assert.deepEqual(deleted, {
    trusted: false,
    reason: "the pull request comes from a fork that was deleted",
  });
  const reader = await assessPlanTrust(octokit(), repo, { author: "reader", fork: null }, "write");
  assert.equal(reader.trusted, false);
  const writer = await assessPlanTrust(octokit(), repo, { author: "writer", fork: null }, "write");
  assert.deepEqual(writer, { trusted: true });
  gh.done();
});

test("a pull request comes from a fork when head.repo is another repository, or null (a deleted fork)", () => {
  const base = { full_name: "acme/widgets", id: 1 };
  const cases: [Parameters<typeof comesFromFork>[0], ReturnType<typeof comesFromFork>][] = [
    [{ full_name: "acme/widgets", id: 1 }, null],
    [{ full_name: "ACME/Widgets" }, null],
    // A fork named like the base repository (its owner renamed) is still another repository.
    [{ full_name: "acme/widgets", id: 2 }, { repo: "acme/widgets" }],
    [{ full_name: "mallory/widgets", id: 2 }, { repo: "mallory/widgets" }],
    [null, { repo: null }],
    // Without an id on both sides, by name (case-insensitive).
    [{ full_name: "mallory/widgets" }, { repo: "mallory/widgets" }],
  ];
  for (const [head, expected] of cases)
    assert.deepEqual(comesFromFork(head, base), expected, JSON.stringify(head));
  // A base without an id (an older payload) is compared by name too.
  assert.equal(comesFromFork({ full_name: "acme/widgets", id: 2 }, { full_name: "Acme/Widgets" }), null);
  assert.deepEqual(comesFromFork({ full_name: "mallory/widgets", id: 2 }, { full_name: "acme/widgets" }), {
    repo: "mallory/widgets",
  });
});
