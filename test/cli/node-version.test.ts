import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "./run-loom.ts";

/** A Node.js older than 24 on this machine (the system one), to run the entry with. */
function findOldNode(): string | null {
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node", "/bin/node"]) {
    if (!existsSync(candidate)) continue;
    const version = spawnSync(candidate, ["--version"], { encoding: "utf8" }).stdout.trim();
    const major = Number(/^v(\d+)\./.exec(version)?.[1]);
    if (major < 24) return candidate;
  }
  return null;
}
const oldNode = findOldNode();

describe(
  "on Node.js older than 24",
  { skip: oldNode ? false : "no Node.js older than 24 on this machine" },
  () => {
    it("bin/loom.js says what to do, without a stack trace, exit 1", () => {
      const result = spawnSync(oldNode ?? "node", ["bin/loom.js", "validate", "examples/PLAN-example.md"], {
        cwd: REPO_ROOT,
        encoding: "utf8",
      });
      const version = spawnSync(oldNode ?? "node", ["--version"], { encoding: "utf8" }).stdout.trim();
      assert.equal(result.status, 1);
      assert.equal(result.stdout, "");
      assert.equal(
        result.stderr,
        `loom needs Node.js 24 or newer (this is ${version}): install it, or run \`nvm use\` in the loom checkout (it has .nvmrc)\n`,
      );
    });

    it("npm start's entry app/start.js says the same, exit 1", () => {
      const result = spawnSync(oldNode ?? "node", ["app/start.js"], { cwd: REPO_ROOT, encoding: "utf8" });
      const version = spawnSync(oldNode ?? "node", ["--version"], { encoding: "utf8" }).stdout.trim();
      assert.equal(result.status, 1);
      assert.equal(
        result.stderr,
        `loom needs Node.js 24 or newer (this is ${version}): install it, or run \`nvm use\` in the loom checkout (it has .nvmrc)\n`,
      );
    });

    it("while the TypeScript entry itself would fail with ERR_UNKNOWN_FILE_EXTENSION (why loom.js exists)", () => {
      const result = spawnSync(oldNode ?? "node", ["bin/loom.ts", "--help"], {
        cwd: REPO_ROOT,
        encoding: "utf8",
      });
      assert.notEqual(result.status, 0);
      assert.match(result.stderr, /ERR_UNKNOWN_FILE_EXTENSION/);
    });
  },
);

describe(".nvmrc", () => {
  it("names Node.js 24", () => {
    assert.equal(readFileSync(join(REPO_ROOT, ".nvmrc"), "utf8"), "24\n");
  });
});
