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
