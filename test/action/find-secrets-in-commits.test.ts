import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { findSecretsInCommits } from "../../action/src/git/find-secrets-in-commits.ts";
import { redactWaysOut } from "../../action/src/upload/redact-ways-out.ts";
import type { RunStageDeps } from "../../action/src/stage/run-stage-deps.ts";
import { git } from "./run-stage-fixture.ts";

const KEY = "model+key/for-tests=1";

async function repo(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "loom-commit-secrets-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  git(dir, "init", "-q", "-b", "main");
  await writeFile(path.join(dir, "README.md"), "# demo\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "start");
  return dir;
}

async function commit(dir: string, message: string, files: Record<string, string>): Promise<string> {
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), content);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", message);
  return git(dir, "rev-parse", "HEAD");
}

describe("findSecretsInCommits: the job's secrets in the session's commits", () => {
  it("finds the key in a file added, then removed, in a later commit's blob, in a file name and in a message", async (t) => {
    const dir = await repo(t);
    const start = git(dir, "rev-parse", "HEAD");
    const hexed = Buffer.from(KEY).toString("hex");
    const first = await commit(dir, "add data", {
      "data.txt": `prefix ${Buffer.from(`a${KEY}`).toString("base64")}\n`,
    });
    const second = await commit(dir, "clean up", { "data.txt": "nothing\n" });
    const third = await commit(dir, `note ${encodeURIComponent(KEY)}`, { [`k-${hexed}.txt`]: "x\n" });
    const head = git(dir, "rev-parse", "HEAD");
    const found = await findSecretsInCommits(dir, { startSha: start, head }, [KEY]);
    assert.deepEqual(
      found.map((f) => [f.commit, f.where, f.path, f.encoding]),
      [
        [third, "path", undefined, "hex"],
        [third, "commit", undefined, "percent"],
        [first, "content", "data.txt", "base64"],
      ],
    );
    assert.ok(!found.some((f) => f.commit === second));
    assert.ok(!JSON.stringify(found).includes(hexed), "a file name holding the key is never written");
  });

  it("finds nothing in clean commits, nor in what the branch held before the session", async (t) => {
    const dir = await repo(t);
    await commit(dir, "old leak, already on the branch", { "old.txt": `${KEY}\n` });
    const start = git(dir, "rev-parse", "HEAD");
    await commit(dir, "work", { "a.txt": "hello\n" });
    const head = git(dir, "rev-parse", "HEAD");
    assert.deepEqual(await findSecretsInCommits(dir, { startSha: start, head }, [KEY]), []);
    assert.deepEqual(await findSecretsInCommits(dir, { startSha: start, head: start }, [KEY]), []);
  });
});

describe("redactWaysOut: what leaves the run job", () => {
  it("masks text files before upload, drops a binary file holding the key, redacts the summary and log lines", async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), "loom-ways-out-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const heartbeat = path.join(dir, "heartbeat.json");
    await writeFile(
      heartbeat,
      `${JSON.stringify({ activity: `Bash echo ${Buffer.from(KEY).toString("hex")}` })}\n`,
    );
    const binary = path.join(dir, "data.bin");
    await writeFile(binary, Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), Buffer.from(KEY)]));
    const uploaded: string[][] = [];
    const summaries: string[] = [];
    const logs: string[] = [];
    const deps = redactWaysOut({
      knownSecrets: [KEY],
      uploadArtifact: (_name: string, files: string[]) => {
        uploaded.push(files.map((f) => path.basename(f)));
        return Promise.resolve();
      },
      writeSummary: (markdown: string) => {
        summaries.push(markdown);
        return Promise.resolve();
      },
      log: (message: string, data?: Record<string, unknown>) =>
        logs.push(`${message} ${JSON.stringify(data)}`),
    } as unknown as RunStageDeps);
    await deps.uploadArtifact("loom-heartbeat-1", [heartbeat, binary], dir);
    assert.deepEqual(uploaded, [["heartbeat.json"]]);
    assert.deepEqual(JSON.parse(await readFile(heartbeat, "utf8")), { activity: "Bash echo [REDACTED]" });
    await deps.writeSummary(`key ${encodeURIComponent(KEY)}`);
    assert.deepEqual(summaries, ["key [REDACTED]"]);
    deps.log(`saw ${KEY}`, { detail: Buffer.from(KEY).toString("base64") });
    assert.ok(!logs.join("\n").includes(KEY));
    assert.match(logs.join("\n"), /not uploaded: the file holds one of the job's secrets/);
    assert.match(logs.at(-1) ?? "", /^saw \[REDACTED\] \{"detail":"\[REDACTED\]/);
  });
});
