import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { addReleaseRow, readReleaseRows, ReleaseTableError } from "../../src/release/add-release-row.ts";
import { LOOM_RELEASES } from "../../src/release/loom-releases.ts";
import type { LoomRelease } from "../../src/release/loom-releases.ts";
import { addChangelogEntry, takeUnreleased } from "../../src/release/render-changelog-entry.ts";
import { CONTRACT_VERSIONS, STAGE_CONTRACTS } from "../../src/release/stage-contract.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const TABLE = readFileSync(join(ROOT, "src/release/loom-releases.ts"), "utf8");
/** A release the table does not have (a version no real release will take soon). */
const NEXT: LoomRelease = {
  version: "99.1.0",
  repository: "acme/loom",
  sha: "f".repeat(40),
  contract: "0.4",
};

describe("loom's release table", () => {
  it("names each release's commit in full, oldest first, each with a contract loom defines", () => {
    assert.deepEqual(
      LOOM_RELEASES.map((release) => release.version),
      ["0.2.0", "0.3.0", ...LOOM_RELEASES.slice(2).map((release) => release.version)],
    );
    for (const release of LOOM_RELEASES) {
      assert.match(release.sha, /^[0-9a-f]{40}$/);
      assert.ok(CONTRACT_VERSIONS.includes(release.contract));
    }
    assert.deepEqual(
      LOOM_RELEASES.slice(0, 2).map((release) => [release.sha.slice(0, 7), release.contract]),
      [
        ["618b4c0", "0.2"],
        ["552299c", "0.3"],
      ],
      "CHANGELOG's release commits of v0.2.0 and v0.3.0",
    );
    assert.deepEqual(
      CONTRACT_VERSIONS.map((version) => STAGE_CONTRACTS[version].version),
      [...CONTRACT_VERSIONS],
    );
  });

  it("addReleaseRow appends a row the App then reads, in prettier's own shape", async () => {
    const text = addReleaseRow(TABLE, NEXT);
    assert.ok(
      text.endsWith(
        `  {\n    version: "99.1.0",\n    repository: "acme/loom",\n    sha: "${"f".repeat(40)}",\n    contract: "0.4",\n  },\n];\n`,
      ),
    );
    assert.equal(
      text.replace(/ {2}\{\n {4}version: "99\.1\.0"[\s\S]*?\n {2}\},\n/, ""),
      TABLE,
      "nothing else changes",
    );
    // The module as Node loads it (its one import is a type, erased).
    const dir = mkdtempSync(join(tmpdir(), "loom-releases-"));
    try {
      writeFileSync(join(dir, "loom-releases.ts"), text);
      const loaded = (await import(join(dir, "loom-releases.ts"))) as { LOOM_RELEASES: unknown[] };
      assert.deepEqual(loaded.LOOM_RELEASES, [...LOOM_RELEASES, NEXT]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("readReleaseRows reads back every row, the one addReleaseRow added last", () => {
    assert.deepEqual(readReleaseRows(addReleaseRow(TABLE, NEXT)), [
      ...LOOM_RELEASES.map(({ version, sha }) => ({ version, sha })),
      { version: "99.1.0", sha: "f".repeat(40) },
    ]);
  });

  it("addReleaseRow refuses a version or a commit the table has, and a file without the table", () => {
    const [first] = LOOM_RELEASES;
    assert.ok(first);
    assert.throws(() => addReleaseRow(TABLE, { ...first, sha: "f".repeat(40) }), ReleaseTableError);
    assert.throws(() => addReleaseRow(TABLE, { ...first, version: "9.9.9" }), /already has sha: "618b4c0/);
    assert.throws(
      () => addReleaseRow("export const OTHER = [];\n", { ...first, version: "9.9.9" }),
      /no LOOM_RELEASES table/,
    );
  });
});

describe("CHANGELOG's Unreleased section", () => {
  it("takeUnreleased finds it only as the first section, in any of its usual spellings", () => {
    for (const heading of ["## Unreleased", "## [Unreleased]", "## unreleased"]) {
      assert.deepEqual(takeUnreleased(`# Changelog\n\nIntro.\n\n${heading}\n\n- a\n\n## v1.0.0\n\nOld.\n`), {
        head: "# Changelog\n\nIntro.\n",
        unreleased: "- a",
        rest: "## v1.0.0\n\nOld.\n",
      });
    }
    assert.equal(takeUnreleased("# Changelog\n\n## v1.0.0\n\n## Unreleased\n\n- late\n").unreleased, null);
    assert.deepEqual(takeUnreleased(""), { head: "", unreleased: null, rest: "" });
  });

  it("addChangelogEntry puts the entry under a fresh empty Unreleased section, keeping the title and every older entry", () => {
    const entry = "## v2.0.0 (2026-12-01)\n\nNew.\n";
    assert.equal(
      addChangelogEntry("# Changelog\n\nIntro.\n\n## Unreleased\n\n- a\n\n## v1.0.0\n\nOld.\n", entry),
      "# Changelog\n\nIntro.\n\n## Unreleased\n\n## v2.0.0 (2026-12-01)\n\nNew.\n\n## v1.0.0\n\nOld.\n",
    );
    assert.equal(
      addChangelogEntry("# Changelog\n\nIntro.\n\n## v1.0.0\n\nOld.\n", entry),
      "# Changelog\n\nIntro.\n\n## Unreleased\n\n## v2.0.0 (2026-12-01)\n\nNew.\n\n## v1.0.0\n\nOld.\n",
      "no Unreleased section before: one is added",
    );
    assert.match(
      addChangelogEntry("", entry),
      /^# Changelog\n\nEvery release of loom, newest first\..*\n\n## Unreleased\n\n## v2\.0\.0/,
    );
  });
});
