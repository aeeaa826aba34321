import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";

const COMMENTS = "/repos/octo/repo/issues/7/comments";
const MARKER = "<!-- loom:status:doc/plans/PLAN-demo.md -->";
const effect = { type: "syncStatusComment", key: "k:status" } as const;
const bot = { login: "loom[bot]", type: "Bot" };

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

test("the status comment is created once, then updated in place", async () => {
  gh = mockGitHub();
  gh.api
    .get(COMMENTS)
    .query({ per_page: "100", page: "1" })
    .reply(200, [{ id: 1, body: "hello", user: { login: "alice", type: "User" } }]);
  gh.api.post(COMMENTS).reply(201, { id: 500 });
  gh.api.patch("/repos/octo/repo/issues/comments/500").reply(200, { id: 500 });
  const ctx = makeContext(makeDiamond());
  await executeEffect(ctx, effect);
  const created = gh.find("POST", COMMENTS)[0]?.body as { body: string };
  assert.ok(created.body.startsWith(MARKER));
  assert.match(created.body, /```mermaid/);
  ctx.state = makeDiamond({ a: { status: "executing", attempt: 1 } });
  await executeEffect(ctx, effect);
  assert.match(
    (gh.find("PATCH", "/repos/octo/repo/issues/comments/500")[0]?.body as { body: string }).body,
    /executing/,
  );
  // Unchanged state: no write.
  await executeEffect(ctx, effect);
  assert.equal(gh.requests.length, 3);
  gh.done();
});

test("after a restart the existing bot comment is found by its marker (on a later page) and updated, not duplicated", async () => {
  gh = mockGitHub();
  const filler = Array.from({ length: 100 }, (_, i) => ({
    id: i + 1,
    body: `c${i}`,
    user: { login: "alice", type: "User" },
  }));
  gh.api.get(COMMENTS).query({ per_page: "100", page: "1" }).reply(200, filler);
  gh.api
    .get(COMMENTS)
    .query({ per_page: "100", page: "2" })
    .reply(200, [
      { id: 601, body: `${MARKER}\nfake`, user: { login: "mallory", type: "User" } },
      { id: 602, body: `${MARKER}\nold`, user: bot },
    ]);
  gh.api.patch("/repos/octo/repo/issues/comments/602").reply(200, { id: 602 });
  await executeEffect(makeContext(makeDiamond(), { cache: undefined }), effect);
  gh.done();
});

test("a status comment someone deleted is created again", async () => {
  gh = mockGitHub();
  gh.api
    .get(COMMENTS)
    .query({ per_page: "100", page: "1" })
    .reply(200, [{ id: 700, body: `${MARKER}\nold`, user: bot }]);
  gh.api.patch("/repos/octo/repo/issues/comments/700").reply(404, { message: "Not Found" });
  gh.api.get(COMMENTS).query({ per_page: "100", page: "1" }).reply(200, []);
  gh.api.post(COMMENTS).reply(201, { id: 701 });
  await executeEffect(makeContext(makeDiamond()), effect);
  gh.done();
});
