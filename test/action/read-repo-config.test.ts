import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { readRepoConfig } from "../../action/src/config/read-repo-config.ts";
import { createGitHubClient } from "../../action/src/github/create-github-client.ts";

const SHA = "a".repeat(40);

type Seen = { url: string; headers: IncomingMessage["headers"] };

/** A GitHub API on 127.0.0.1 answering with one status and body, or the statuses in turn. */
async function startApi(
  t: { after: (fn: () => Promise<void>) => void },
  status: number | number[],
  body: string,
): Promise<{ apiUrl: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    const answer = Array.isArray(status) ? (status[seen.length - 1] ?? status.at(-1) ?? 500) : status;
    res.writeHead(answer, { "content-type": "text/plain" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3/`, seen };
}

const read = (apiUrl: string, overrides: { ref?: string; repository?: string; timeoutMs?: number } = {}) =>
  readRepoConfig({
    github: createGitHubClient({ token: "ghs_job_token", apiUrl, retryBaseMs: 0 }),
    repository: "acme/widgets",
    ref: SHA,
    ...overrides,
  });

test("the config is read at the dispatched commit with the job's token", async (t) => {
  const api = await startApi(t, 200, "session:\n  max_budget_usd: 3\n  max_turns: 40\n");
  const result = await read(api.apiUrl);
  assert.ok(result.ok);
  assert.deepEqual(result.config?.session, { max_budget_usd: 3, max_turns: 40 });
  assert.equal(api.seen.length, 1);
  assert.equal(api.seen[0]?.url, `/api/v3/repos/acme/widgets/contents/.github/loom.yml?ref=${SHA}`);
  assert.equal(api.seen[0]?.headers.authorization, "token ghs_job_token");
  assert.equal(api.seen[0]?.headers.accept, "application/vnd.github.raw+json");
});

test("a repository without .github/loom.yml has no config", async (t) => {
  const api = await startApi(t, 404, '{"message":"Not Found"}');
  assert.deepEqual(await read(api.apiUrl), { ok: true, config: null });
});

test("an invalid config is reported with what is wrong", async (t) => {
  const api = await startApi(t, 200, "session:\n  max_turns: lots\n");
  const result = await read(api.apiUrl);
  assert.ok(!result.ok);
  assert.match(result.reason, /\.github\/loom\.yml is invalid: session\.max_turns/);
});

test("keys a newer loom wrote are left out and named, but never under session; the keys this release knows are checked as strictly", async (t) => {
  // A caller pins an older release than the App: the App checked the whole file, the stage job
  // uses what it knows (a stage must not fail because the repository turned on a newer setting).
  const api = await startApi(
    t,
    200,
    "rerun_soon: affected\nsession:\n  max_turns: 40\nbudget:\n  plan_usd: 5\n  new_knob: { a: 1 }\n",
  );
  const result = await read(api.apiUrl);
  assert.ok(result.ok);
  assert.deepEqual(result.config?.session, { max_turns: 40 });
  assert.equal(result.config?.budget?.plan_usd, 5);
  assert.deepEqual(result.ignored?.sort(), ["budget.new_knob", "rerun_soon"]);
  const bad = await read((await startApi(t, 200, "future: 1\nsession:\n  max_turns: lots\n")).apiUrl);
  assert.ok(!bad.ok);
  assert.match(bad.reason, /session\.max_turns/);
  // What bounds the session is never dropped: a session key this release cannot honour fails it.
  const bound = await read((await startApi(t, 200, "session:\n  max_turns: 40\n  new_limit: 1\n")).apiUrl);
  assert.ok(!bound.ok);
  assert.match(bound.reason, /new_limit/);
});

test("a refusal from GitHub is reported, not taken as no config", async (t) => {
  const api = await startApi(t, 403, '{"message":"Resource not accessible"}');
  const result = await read(api.apiUrl);
  assert.ok(!result.ok);
  assert.match(result.reason, /GitHub answered 403/);
});

test("a missing GITHUB_SHA or repository is reported without a request", async (t) => {
  const api = await startApi(t, 200, "");
  for (const overrides of [
    { ref: "" },
    { ref: "main" },
    { repository: "" },
    { repository: "a/b/../c" },
    { repository: "../.." },
  ]) {
    const result = await read(api.apiUrl, overrides);
    assert.ok(!result.ok, JSON.stringify(overrides));
  }
  assert.equal(api.seen.length, 0);
});

test("an unreachable API is reported as a value", async () => {
  const result = await read("http://127.0.0.1:1");
  assert.ok(!result.ok);
  assert.match(result.reason, /cannot read \.github\/loom\.yml: the request failed/);
});

test("a GitHub hiccup (5xx, 429) is retried before the config is given up", async (t) => {
  const api = await startApi(t, [502, 429, 200], "session:\n  max_turns: 7\n");
  const result = await read(api.apiUrl);
  assert.ok(result.ok);
  assert.deepEqual(result.config?.session, { max_turns: 7 });
  assert.equal(api.seen.length, 3);
});

test("a config GitHub keeps failing to serve is reported after three attempts", async (t) => {
  const api = await startApi(t, 503, "unavailable");
  const result = await read(api.apiUrl);
  assert.ok(!result.ok);
  assert.match(result.reason, /GitHub answered 503 \(3 attempts\)/);
  assert.equal(api.seen.length, 3);
});

test("a refusal or a missing file is not retried", async (t) => {
  for (const status of [401, 403, 404, 422]) {
    const api = await startApi(t, status, '{"message":"no"}');
    await read(api.apiUrl);
    assert.equal(api.seen.length, 1, String(status));
  }
});

test("a config larger than 64 KiB is refused unread", async (t) => {
  const api = await startApi(t, 200, `# ${"x".repeat(70 * 1024)}\nmax_parallel: 2\n`);
  const result = await read(api.apiUrl);
  assert.ok(!result.ok);
  assert.match(result.reason, /larger than 65536 bytes/);
});

test("the API URL of GitHub Enterprise Server (GITHUB_API_URL, …/api/v3) is where the config is read", async (t) => {
  const api = await startApi(t, 200, "max_parallel: 2\n");
  const result = await read(api.apiUrl);
  assert.ok(result.ok);
  assert.equal(result.config?.max_parallel, 2);
  assert.match(api.seen[0]?.url ?? "", /^\/api\/v3\/repos\//);
  assert.match(String(api.seen[0]?.headers["user-agent"]), /loom-action/);
});

test("a GitHub that never answers is given up after the timeout, as a reason", async (t) => {
  const sockets = new Set<Socket>();
  const server = createServer(() => undefined);
  server.on("connection", (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const result = await read(apiUrl, { timeoutMs: 300 });
  assert.ok(!result.ok);
  assert.match(result.reason, /GitHub did not answer within 0\.3 s/);
});
