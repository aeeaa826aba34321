import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { executeEffect } from "../../app/github/execute-effect.ts";
import { mockGitHub } from "../support/github-mock.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeDiamond } from "../status/make-plan-state.ts";
import { makeContext } from "./make-context.ts";

const reply = {
  type: "reply",
  key: "k:retry:77",
  source: { kind: "comment", commentId: 77, login: "bob" },
  reaction: "-1",
  body: "did nothing: @bob has read access; loom needs write or above",
} as const;
const REACTIONS = "/repos/octo/repo/issues/comments/77/reactions";
const state = makeDiamond();
const COMMENTS = `/repos/octo/repo/issues/${state.pr.number}/comments`;
const bot = { login: "loom[bot]" };

let gh: GitHubMock | undefined;
afterEach(() => gh?.cleanup());

test("a first claim reacts and posts the reply without reading comments", async () => {
  gh = mockGitHub();
  gh.api.post(REACTIONS, { content: "-1" }).reply(201, {});
  gh.api.post(COMMENTS).reply(201, { id: 1 });
  const ctx = makeContext(state, { config: { workflowFile: "loom.yml", botLogin: bot.login } });
  await executeEffect(ctx, reply);
  const posted = gh.find("POST", COMMENTS);
  assert.equal(posted.length, 1);
  assert.match(
    String((posted[0]?.body as { body: string }).body),
    /^<!-- loom:reply:k:retry:77 -->\ndid nothing/,
  );
  assert.equal(gh.find("GET", COMMENTS).length, 0);
  gh.done();
});

test("a retried claim whose reply was already posted does not post it twice", async () => {
  gh = mockGitHub();
  gh.api.post(REACTIONS).reply(200, {});
  gh.api
    .get(COMMENTS)
    .query(true)
    .reply(200, [
      { id: 5, user: { login: "bob" }, body: "/loom retry a" },
      { id: 6, user: bot, body: "<!-- loom:reply:k:retry:77 -->\ndid nothing: @bob has read access" },
    ]);
  const ctx = makeContext(state, { attempt: 2, config: { workflowFile: "loom.yml", botLogin: bot.login } });
  await executeEffect(ctx, reply);
  assert.equal(gh.find("POST", COMMENTS).length, 0);
  gh.done();
});

test("a retried claim posts when only someone else's comment carries the marker", async () => {
  gh = mockGitHub();
  gh.api.post(REACTIONS).reply(200, {});
  gh.api
    .get(COMMENTS)
    .query(true)
    .reply(200, [{ id: 5, user: { login: "mallory" }, body: "<!-- loom:reply:k:retry:77 -->\nfake" }]);
  gh.api.post(COMMENTS).reply(201, { id: 7 });
  const ctx = makeContext(state, { attempt: 3, config: { workflowFile: "loom.yml", botLogin: bot.login } });
  await executeEffect(ctx, reply);
  assert.equal(gh.find("POST", COMMENTS).length, 1);
  gh.done();
});
