import { test } from "node:test";
import assert from "node:assert/strict";
import { meetsRole, parseLoomConfig, toSettings } from "../../src/config/loom-config.ts";
import { DEFAULT_CAPS } from "../../src/config/default-caps.ts";
import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";

test("a repository without .github/loom.yml gets the default settings, loom's default plan budget among them", () => {
  const result = parseLoomConfig(null);
  assert.ok(result.ok);
  assert.deepEqual(toSettings(result.config), {
    ...DEFAULT_SETTINGS,
    labelPrefix: "loom",
    stageLabels: false,
    deleteBranches: true,
    runnerNoticeMs: 5 * 60_000,
    runnerTimeoutMs: 60 * 60_000,
    renamePlans: true,
    planBudgetUsd: DEFAULT_CAPS.planBudgetUsd,
    planBudgetFrom: "default",
  });
  assert.equal(result.config.minimum_role, "write");
  assert.equal(result.config.label_prefix, "loom");
  assert.equal(result.config.workflow, "loom.yml");
});

test("settings in .github/loom.yml change scheduling", () => {
  const result = parseLoomConfig(
    "workflow: stage.yml\nmax_parallel: 2\nretry:\n  max_attempts: 5\nheartbeat_timeout_seconds: 600\nminimum_role: maintain\n",
  );
  assert.ok(result.ok);
  const settings = toSettings(result.config);
  assert.equal(settings.maxParallel, 2);
  assert.equal(settings.maxAttempts, 5);
  assert.equal(settings.backoffBaseMs, 30_000);
  assert.equal(settings.heartbeatTimeoutMs, 600_000);
  assert.equal(result.config.minimum_role, "maintain");
});

test("runner_wait sets when a queued run's check run says it waits for a runner and when it is cancelled", () => {
  const result = parseLoomConfig("runner_wait:\n  notice_minutes: 2\n  cancel_minutes: 20\n");
  assert.ok(result.ok);
  const settings = toSettings(result.config);
  assert.equal(settings.runnerNoticeMs, 120_000);
  assert.equal(settings.runnerTimeoutMs, 1_200_000);
  const bad = parseLoomConfig("runner_wait:\n  cancel_minutes: 0\n");
  assert.equal(bad.ok, false);
});

test("rerun: affected re-runs a push's affected stages without asking; ask (the default) waits for a person", () => {
  const auto = parseLoomConfig("rerun: affected\n");
  assert.ok(auto.ok);
  assert.equal(toSettings(auto.config).rerunAffected, true);
  const ask = parseLoomConfig("rerun: ask\n");
  assert.ok(ask.ok);
  assert.equal(toSettings(ask.config).rerunAffected, undefined);
  assert.equal(parseLoomConfig("rerun: always\n").ok, false);
});

test("a typo or a bad value in .github/loom.yml is reported, not ignored", () => {
  const typo = parseLoomConfig("max_paralel: 2\n");
  assert.ok(!typo.ok);
  const bad = parseLoomConfig("minimum_role: triage\nworkflow: ../evil.yml\n");
  assert.ok(!bad.ok);
  assert.equal(bad.problems.length, 2);
  const broken = parseLoomConfig("retry: [\n");
  assert.ok(!broken.ok);
  assert.equal(typeof broken.problems[0]?.line, "number");
});

test("roles compare from read up to admin", () => {
  assert.ok(meetsRole("admin", "write"));
  assert.ok(meetsRole("write", "write"));
  assert.ok(!meetsRole("triage", "write"));
  assert.ok(!meetsRole("none", "triage"));
});
