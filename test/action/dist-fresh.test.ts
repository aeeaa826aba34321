import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");
const committed = path.join(root, "action/dist");

async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    const rel = path.join(prefix, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(path.join(dir, entry.name), rel)));
    else files.push(rel);
  }
  return files.sort();
}

test("the committed action/dist is what `npm run build` produces from the sources", async (t) => {
  const out = await mkdtemp(path.join(tmpdir(), "loom-dist-"));
  t.after(() => rm(out, { recursive: true, force: true }));
  execFileSync(process.execPath, [path.join(root, "scripts/build-action.ts"), out], {
    cwd: root,
    stdio: "pipe",
  });
  const fresh = await listFiles(out);
  assert.ok(fresh.includes("main.js"), "the build writes main.js");
  assert.deepEqual(
    await listFiles(committed),
    fresh,
    "stale action/dist: run `npm run build` and commit action/dist",
  );
  for (const file of fresh) {
    const same = (await readFile(path.join(out, file))).equals(await readFile(path.join(committed, file)));
    assert.ok(same, `action/dist/${file} is stale: run \`npm run build\` and commit action/dist`);
  }
});

test("action.yml runs the committed bundle on node24", async () => {
  const yml = await readFile(path.join(root, "action/action.yml"), "utf8");
  assert.match(yml, /^runs:\n {2}using: node24\n {2}main: dist\/main\.js$/m);
});
