import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { extractZip, ZIP_LIMITS, ZipRefusedError } from "../../action/src/upload/extract-zip.ts";
import { createZip } from "../emulator/create-zip.ts";

async function inTemp(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "extract-zip-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test("an artifact zip unpacks into the folder, subfolders included", async (t) => {
  const dir = await inTemp(t);
  const zip = createZip({ "loom-result.json": '{"ok":true}', "nested/heartbeat.json": "{}" });
  const written = await extractZip(zip, path.join(dir, "out"));
  assert.equal(written.length, 2);
  assert.equal(await readFile(path.join(dir, "out", "loom-result.json"), "utf8"), '{"ok":true}');
  assert.equal(await readFile(path.join(dir, "out", "nested", "heartbeat.json"), "utf8"), "{}");
});

test("entries that would land outside the folder are refused and nothing is written", async (t) => {
  for (const name of ["../escape.txt", "a/../../escape.txt", "/etc/escape.txt"]) {
    const dir = await inTemp(t);
    const out = path.join(dir, "out");
    await assert.rejects(
      extractZip(createZip({ "fine.txt": "x", [name]: "evil" }), out),
      ZipRefusedError,
      name,
    );
    assert.deepEqual(await readdir(dir), [], name);
  }
});

test("archives over the limits are refused before they are unpacked", async (t) => {
  const dir = await inTemp(t);
  const big = new Uint8Array(2048);
  const limits = { ...ZIP_LIMITS, maxFileBytes: 1024 };
  await assert.rejects(extractZip(createZip({ "big.bin": big }), dir, limits), /more than 1024 bytes/);
  const many = Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`f${i}.txt`, "x"]));
  await assert.rejects(extractZip(createZip(many), dir, { ...ZIP_LIMITS, maxFiles: 3 }), /more than 3 files/);
  const total = { a: new Uint8Array(600), b: new Uint8Array(600) };
  await assert.rejects(
    extractZip(createZip(total), dir, { ...ZIP_LIMITS, maxTotalBytes: 1000 }),
    /unpacks to more than 1000 bytes/,
  );
  assert.deepEqual(await readdir(dir), []);
});
