import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ArtifactReader } from "../../action/src/upload/artifact-port.ts";
import { loadPreviousSession } from "../../action/src/upload/load-previous-session.ts";

const source = { runId: 42, token: "t", owner: "o", repo: "r" };
const heartbeat = {
  stage_id: "build",
  session_id: "s",
  attempt: 1,
  timestamp: "2026-11-21T10:00:00Z",
  context_percent: 40,
  last_tool: "Edit",
  activity: "Edit a.ts",
  turns: 9,
  cost_usd: 0.3,
};
const result = {
  version: 1,
  plan_id: "P",
  stage_id: "build",
  attempt: 1,
  kind: "stage",
  outcome: "needs-handoff",
  reason: "context",
  checks: [],
  commits: [],
  head_sha: "b".repeat(40),
  turns: 9,
  tokens: { input: 1, output: 1, cache_read: 0, cache_creation: 0 },
  cost_usd: 0.3,
  duration_ms: 1,
  context_percent: 66,
  handoff: "# Handoff\n\nhalf",
  deviations: [],
  permission_denials: [],
};

/** A reader over named artifacts, each one file; newest first as the real one lists them. */
function fakeReader(artifacts: { name: string; file: string; body: string }[]): ArtifactReader {
  return {
    list: () => Promise.resolve(artifacts.map((a, i) => ({ id: i + 1, name: a.name, createdAt: 1000 - i }))),
    download: async (_source, id, directory) => {
      const a = artifacts[id - 1];
      if (a !== undefined) await writeFile(path.join(directory, a.file), a.body);
    },
  };
}

test("a recovery reads the handoff from the previous loom-result and its newest heartbeat", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), "loom-prev-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const reader = fakeReader([
    { name: "loom-result", file: "loom-result.json", body: JSON.stringify(result) },
    { name: "loom-heartbeat-7", file: "heartbeat.json", body: JSON.stringify(heartbeat) },
    { name: "loom-heartbeat-6", file: "heartbeat.json", body: JSON.stringify({ ...heartbeat, turns: 1 }) },
  ]);
  const previous = await loadPreviousSession(reader, source, dir);
  assert.equal(previous.handoff, "# Handoff\n\nhalf");
  assert.equal(previous.lastHeartbeat?.turns, 9);
  assert.deepEqual(previous.notes, []);
});

test("a previous run killed with its runner (no result) still yields its heartbeat, and says what is missing", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), "loom-prev-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const reader = fakeReader([{ name: "loom-heartbeat-3", file: "heartbeat.json", body: "{not json" }]);
  const previous = await loadPreviousSession(reader, source, dir);
  assert.equal(previous.handoff, undefined);
  assert.equal(previous.lastHeartbeat, undefined);
  assert.deepEqual(previous.notes, [
    "run 42 left no loom-result",
    "the newest heartbeat of run 42 is invalid",
  ]);
});

const SESSION = "71278deb-52e9-4b55-b355-17c5214b97c0";
const manifest = JSON.stringify({ version: 1, session_id: SESSION, stage_id: "build", attempt: 1 });
const conversation = `${JSON.stringify({ type: "user", sessionId: SESSION, message: { role: "user", content: "go" } })}\n`;

/** A reader whose `loom-session` artifact holds `files`, beside a completed `loom-result`. */
function sessionReader(files: Record<string, string> | null): ArtifactReader {
  const completed = JSON.stringify({ ...result, outcome: "completed", handoff: undefined });
  const names = ["loom-result", ...(files === null ? [] : ["loom-session"])];
  return {
    list: () => Promise.resolve(names.map((name, i) => ({ id: i + 1, name, createdAt: 1000 - i }))),
    download: async (_source, id, directory) => {
      if (id === 1) return writeFile(path.join(directory, "loom-result.json"), completed);
      for (const [name, body] of Object.entries(files ?? {}))
        await writeFile(path.join(directory, name), body);
    },
  };
}

test("a continue reads the earlier session's state only when asked, and only a transcript of the session its manifest names", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), "loom-prev-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const good = sessionReader({ "session.json": manifest, "session.jsonl": conversation });
  assert.equal((await loadPreviousSession(good, source, path.join(dir, "a"))).sessionState, undefined);
  const loaded = await loadPreviousSession(good, source, path.join(dir, "b"), { withSessionState: true });
  assert.deepEqual(loaded.sessionState, { ok: true, sessionId: SESSION, transcript: conversation });
  assert.equal(loaded.result?.outcome, "completed");

  const cases: [Record<string, string> | null, RegExp][] = [
    [null, /run 42 left no loom-session \(expired, or an older loom\)/],
    [{ "session.jsonl": conversation }, /has no valid manifest/],
    [
      { "session.json": JSON.stringify({ ...JSON.parse(manifest), session_id: "../../etc/passwd" }) },
      /has no valid manifest/,
    ],
    [{ "session.json": manifest }, /holds no transcript/],
    [{ "session.json": manifest, "session.jsonl": "{broken" }, /cannot be resumed: line 1 is not JSON/],
  ];
  for (const [index, [files, why]] of cases.entries()) {
    const state = (
      await loadPreviousSession(sessionReader(files), source, path.join(dir, `c${index}`), {
        withSessionState: true,
      })
    ).sessionState;
    assert.equal(state?.ok, false);
    assert.match(state?.ok === false ? state.reason : "", why);
  }
});
