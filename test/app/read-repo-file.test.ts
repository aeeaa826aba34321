import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { ProbotOctokit } from "probot";
import { EffectError } from "../../app/github/effect-context.ts";
import { readRepoFile } from "../../app/engine/read-repo-file.ts";
import { mockGitHub, type GitHubMock } from "../support/github-mock.ts";

/*
 * How the App reads one file at one ref (plans at the pull request's head, `.github/loom.yml` on
 * the default branch), against GitHub's answers as the OpenAPI description gives them.
 */

const Octokit = ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } });
const repo = { owner: "octo", repo: "repo" };
const PATH = "doc/plans/PLAN-x.md";
const CONTENT = `/repos/octo/repo/contents/${encodeURIComponent(PATH)}`;
const SHA = "3".repeat(40);

let gh: GitHubMock | undefined;
afterEach(() => {
  gh?.cleanup();
  gh = undefined;
});

function fileAnswer(overrides: Record<string, unknown>) {
  const text = "# Plan: x\n";
  return {
    type: "file",
    name: "PLAN-x.md",
    path: PATH,
    sha: SHA,
    size: Buffer.byteLength(text),
    encoding: "base64",
    content: Buffer.from(text).toString("base64"),
    url: "https://api.github.com/x",
    git_url: "https://api.github.com/x",
    html_url: "https://github.com/x",
    download_url: "https://raw.githubusercontent.com/x",
    _links: {
      self: "https://api.github.com/x",
      git: "https://api.github.com/x",
      html: "https://github.com/x",
    },
    ...overrides,
  };
}

async function read(status: number, body: unknown) {
  gh?.cleanup();
  gh = mockGitHub();
  gh.api.get(CONTENT).query({ ref: "main" }).reply(status, body);
  const result = await readRepoFile(new Octokit({ auth: "t" }), repo, PATH, "main");
  gh.done();
  return result;
}

test("a file is decoded from base64 with its blob SHA", async () => {
  assert.deepEqual(await read(200, fileAnswer({})), { found: true, text: "# Plan: x\n", blobSha: SHA });
});

test("a file over 1 MiB, or one GitHub sends without its content, is found but not read, with the reason", async () => {
  const big = await read(200, fileAnswer({ size: 1024 * 1024 + 1 }));
  assert.deepEqual(big, { found: true, text: null, blobSha: SHA, reason: `${PATH} is larger than 1 MiB` });
  const exactly = await read(200, fileAnswer({ size: 1024 * 1024 }));
  assert.equal(exactly.found && exactly.text, "# Plan: x\n", "1 MiB exactly is read");
  const none = await read(200, fileAnswer({ encoding: "none", content: "" }));
  assert.equal(none.found && none.text, null);
  const missing = fileAnswer({});
  delete (missing as { content?: string }).content;
  const unsent = await read(200, missing);
  assert.equal(unsent.found && unsent.text, null);
});

test("a path that is no file (a directory, a symlink) or is not there is not found; other failures throw for a retry", async () => {
  assert.deepEqual(await read(200, [fileAnswer({})]), { found: false });
  assert.deepEqual(await read(200, fileAnswer({ type: "symlink", target: "x" })), { found: false });
  assert.deepEqual(await read(404, { message: "Not Found" }), { found: false });
  await assert.rejects(
    read(502, { message: "Bad Gateway" }),
    (error: unknown) =>
      error instanceof EffectError && /reading doc\/plans\/PLAN-x\.md at main/.test(error.message),
  );
});
