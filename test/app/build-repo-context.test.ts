import assert from "node:assert/strict";
import { test } from "node:test";
import type { ProbotOctokit } from "probot";
import { buildRepoContext, withState } from "../../app/engine/build-repo-context.ts";
import type { EngineDeps } from "../../app/engine/engine-deps.ts";
import { createApiCalls } from "../../app/github/effect-context.ts";
import { createGitHubCache } from "../../app/github/github-cache.ts";
import { makeDiamond } from "../status/make-plan-state.ts";

/*
 * What the effect executor gets from the App's dependencies: the GitHub host (GHES: no live
 * heartbeats, the artifact client's host), the bot's login (loom's own runs), the request counter,
 * the ETag cache (conditional reads cost nothing) and the sleep of retries, each only when given.
 */

const octokit = {} as ProbotOctokit;
const repo = { owner: "acme", repo: "widgets" };
const settings = { workflowFile: "loom.yml", defaultBranch: "trunk" };
const now = () => 1;
const log = { info: () => undefined } as unknown as EngineDeps["log"];

test("every dependency the App was given reaches the executor", async () => {
  const calls = createApiCalls();
  const cache = createGitHubCache();
  const sleep = () => Promise.resolve();
  const deps = {
    getBotLogin: () => Promise.resolve("loom[bot]"),
    serverUrl: "https://ghes.example.com",
    now,
    log,
    calls,
    cache,
    sleep,
  } as unknown as EngineDeps;
  const context = await buildRepoContext(deps, octokit, repo, settings);
  assert.deepEqual(context.config, {
    workflowFile: "loom.yml",
    defaultBranch: "trunk",
    serverUrl: "https://ghes.example.com",
    botLogin: "loom[bot]",
  });
  assert.equal(context.octokit, octokit);
  assert.deepEqual([context.owner, context.repo], ["acme", "widgets"]);
  assert.equal(context.now, now);
  assert.equal(context.log, log);
  assert.equal(context.calls, calls);
  assert.equal(context.cache, cache);
  assert.equal(context.sleep, sleep);
  const state = makeDiamond();
  const effect = withState(context, state, 3);
  assert.equal(effect.state, state);
  assert.equal(effect.attempt, 3);
  assert.equal(withState(context, state).attempt, 1, "a first attempt by default");
});

test("what the App was not given is left out (github.com, bot login not known yet, no counter, cache or sleep)", async () => {
  const deps = { getBotLogin: () => Promise.resolve(null), now, log } as unknown as EngineDeps;
  const context = await buildRepoContext(deps, octokit, repo, settings);
  assert.deepEqual(context.config, { workflowFile: "loom.yml", defaultBranch: "trunk" });
  for (const field of ["calls", "cache", "sleep"]) assert.equal(field in context, false, field);
});
