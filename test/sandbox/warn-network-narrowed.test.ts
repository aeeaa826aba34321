import assert from "node:assert/strict";
import { test } from "node:test";
import { parseLoomConfig } from "../../src/config/loom-config.ts";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import { warnNetworkNarrowed } from "../../src/sandbox/warn-network-narrowed.ts";

const TEXT = [
  "# Plan: Net", // 1
  "", // 2
  "<!-- loom METADATA -->", // 3
  "", // 4
  "```yaml", // 5
  "loom:", // 6
  "  version: 1", // 7
  "  sandbox:", // 8
  "    network:", // 9
  "      allowed_domains: [github.com, evil.example]", // 10
  "  stages:", // 11
  "    - id: a", // 12
  "      name: A", // 13
  "      sandbox:", // 14
  "        enabled: false", // 15
  "    - id: b", // 16
  "      name: B", // 17
  "      sandbox:", // 18
  "        network:", // 19
  "          allowed_domains: ['*']", // 20
  "```", // 21
  "", // 22
  "<!-- END loom METADATA -->", // 23
  "",
].join("\n");

test("what .github/loom.yml's allowlist takes from a plan's sandbox is warned about at the plan's lines", () => {
  const parsed = parsePlan("doc/plans/PLAN-net.md", TEXT);
  assert.ok(parsed.ok, JSON.stringify(parsed));
  const config = parseLoomConfig("session:\n  network:\n    allow: [github.com, '*.npmjs.org']\n");
  assert.ok(config.ok);
  const warnings = warnNetworkNarrowed(TEXT, parsed.plan, config.config);
  assert.deepEqual(
    warnings.map((w) => [w.line, w.column, w.stage]),
    [
      [9, 5, undefined],
      [15, 9, "a"],
      [19, 9, "b"],
    ],
  );
  assert.match(warnings[0]?.message ?? "", /^`evil\.example` is not allowed: \.github\/loom\.yml/);
  assert.match(warnings[1]?.message ?? "", /^stage "a": `sandbox\.enabled: false` does not lift/);
  assert.match(warnings[2]?.message ?? "", /^stage "b": `\*` is narrowed to `github\.com`, `\*\.npmjs\.org`/);
  assert.deepEqual(warnNetworkNarrowed(TEXT, parsed.plan, null), []);
});
