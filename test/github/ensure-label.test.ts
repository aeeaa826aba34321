import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { makeContext, makeRetryingOctokit } from "./make-context.ts";

const label = {
  name: "loom:skip:a",
  color: "c5def5",
  description: "loom: skip stage a — its dependents treat it as done",
};
const effect = { type: "ensureLabel", key: "k:@label:loom:skip:a", label } as const;
const ensured = (at: number) => [{ type: "label.ensured", at, name: "loom:skip:a" }];

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

test("creates the label once; the same repository is not asked again (later plans)", async () => {
  gh = mockGitHub();
  gh.api.post("/repos/octo/repo/labels", label).reply(201, { id: 1, name: label.name });
  const ctx = makeContext(makeDiamond());
  assert.deepEqual(await executeEffect(ctx, effect), ensured(ctx.now()));
  assert.deepEqual(await executeEffect(ctx, effect), ensured(ctx.now()), "answered from the cache");
  assert.equal(gh.find("POST", "/repos/octo/repo/labels").length, 1);
  assert.equal(ctx.calls?.by["ensureLabel"], 1);
  gh.done();
});

test("a label that exists already (422 already_exists) is success", async () => {
  gh = mockGitHub();
  gh.api.post("/repos/octo/repo/labels").reply(422, {
    message: "Validation Failed",
    errors: [{ resource: "Label", code: "already_exists", field: "name" }],
  });
  const ctx = makeContext(makeDiamond());
  assert.deepEqual(await executeEffect(ctx, effect), ensured(ctx.now()));
  assert.deepEqual(
    ctx.lines.filter((l) => l.level === "warn"),
    [],
  );
  await executeEffect(ctx, effect);
  assert.equal(gh.find("POST", "/repos/octo/repo/labels").length, 1, "remembered as existing");
  gh.done();
});

for (const [what, status, body] of [
  ["a refusal (403, no permission)", 403, { message: "Resource not accessible by integration" }],
  [
    "another validation failure (422 invalid)",
    422,
    { message: "Validation Failed", errors: [{ code: "invalid" }] },
  ],
  [
    "a server error, never retried (it would hold the plan's dispatches back)",
    502,
    { message: "Bad Gateway" },
  ],
] as const) {
  test(`${what} is logged and moves on, without throwing or remembering the label`, async () => {
    gh = mockGitHub();
    gh.api.post("/repos/octo/repo/labels").reply(status, body);
    gh.api.post("/repos/octo/repo/labels").reply(201, { id: 1, name: label.name });
    // Probot's Octokit retries 5xx by default: the label request opts out.
    const ctx = makeContext(makeDiamond(), { octokit: makeRetryingOctokit() });
    assert.deepEqual(await executeEffect(ctx, effect), ensured(ctx.now()));
    assert.equal(ctx.lines.filter((l) => l.level === "warn").length, 1);
    await executeEffect(ctx, effect);
    assert.equal(gh.find("POST", "/repos/octo/repo/labels").length, 2, "a later plan tries again");
    gh.done();
  });
}

test("a label is logged when created, and one name in another case is the same label (GitHub ignores case)", async () => {
  gh = mockGitHub();
  gh.api.post("/repos/octo/repo/labels").reply(201, { id: 1, name: label.name });
  const ctx = makeContext(makeDiamond());
  await executeEffect(ctx, effect);
  const shouting = { ...effect, label: { ...label, name: "LOOM:SKIP:A" } };
  assert.deepEqual(await executeEffect(ctx, shouting), [
    { type: "label.ensured", at: ctx.now(), name: "LOOM:SKIP:A" },
  ]);
  assert.equal(gh.find("POST", "/repos/octo/repo/labels").length, 1);
  assert.deepEqual(ctx.lines, [{ level: "info", data: { label: "loom:skip:a" }, message: "label created" }]);
  gh.done();
});

test("a 422 without GitHub's list of errors is a failure, logged with its status and reason", async () => {
  gh = mockGitHub();
  gh.api.post("/repos/octo/repo/labels").reply(422, { message: "Validation Failed" });
  const ctx = makeContext(makeDiamond());
  assert.deepEqual(await executeEffect(ctx, effect), ensured(ctx.now()));
  assert.deepEqual(ctx.lines, [
    {
      level: "warn",
      data: { label: "loom:skip:a", status: 422, reason: "Validation Failed" },
      message: "could not create loom's label; it can be created by hand",
    },
  ]);
  gh.done();
});
