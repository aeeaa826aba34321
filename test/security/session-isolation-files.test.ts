import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { readSessionFile } from "../../action/src/isolation/read-session-file.ts";
import { collectLearnings } from "../../action/src/knowledge/collect-learnings.ts";
import { readHookHeartbeat } from "../../action/src/session/build-heartbeat.ts";

/**
 * The session user owns its state folder and the learnings folder: what it leaves there is read by
 * the action (root, or the runner's user), which must not follow a link to a file only the action
 * may read (its own /proc/<pid>/environ holds the runner's tokens), nor block on a FIFO.
 */
async function folder(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "loom-session-files-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test("a link the session leaves in place of its handoff notes or heartbeat is not followed", async (t) => {
  const dir = await folder(t);
  const secret = path.join(dir, "action-only.txt");
  await writeFile(secret, '{"stage_id":"x"} the runner token');
  await symlink(secret, path.join(dir, "handoff-notes.md"));
  await symlink("/proc/self/environ", path.join(dir, "heartbeat.json"));
  assert.equal(readSessionFile(path.join(dir, "handoff-notes.md"), 1000), null);
  assert.equal(readSessionFile(path.join(dir, "heartbeat.json"), 1000), null);
  assert.equal(readHookHeartbeat(path.join(dir, "heartbeat.json")), null);
  await writeFile(path.join(dir, "notes.md"), "plain notes");
  assert.equal(readSessionFile(path.join(dir, "notes.md"), 5), "plain");
});

test("a FIFO the session leaves is not read (the action would block on it)", async (t) => {
  const dir = await folder(t);
  execFileSync("mkfifo", [path.join(dir, "handoff-notes.md")]);
  assert.equal(readSessionFile(path.join(dir, "handoff-notes.md"), 1000), null);
});

test("a learnings file that is a link to the action's own environment is refused, not read", async (t) => {
  const dir = await folder(t);
  const file = path.join(dir, "learnings.jsonl");
  await symlink("/proc/self/environ", file);
  const collected = await collectLearnings({
    file,
    existing: [],
    knownSecrets: [],
    origin: { plan_id: "p", stage_id: "s", attempt: 1, recorded_at: new Date(0).toISOString() },
  });
  assert.ok(collected !== null, "the file was there: it is reported");
  assert.deepEqual(collected.accepted, []);
  assert.equal(collected.rejected.length, 1);
  assert.match(collected.rejected[0]?.reason ?? "", /could not be read \(ELOOP\)/);
  assert.doesNotMatch(JSON.stringify(collected), /PATH=/);
});
