import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CheckContext } from "../../action/src/checks/check-context.ts";
import { decideStageOutcome } from "../../action/src/checks/decide-stage-outcome.ts";
import { captureBaseline, compareChangeImpact } from "../../action/src/checks/run-change-impact.ts";
import { findForkPoint } from "../../action/src/git/find-fork-point.ts";
import { ChangeImpactConfig, Stage } from "../../src/plan/plan.ts";
import { findNewFailures } from "../../src/stage/find-new-failures.ts";

const stage = Stage.parse({ id: "s", name: "s" });

async function repo(t: { after: (fn: () => Promise<void>) => void }): Promise<CheckContext> {
  const dir = await mkdtemp(path.join(tmpdir(), "loom-impact-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const git = (...args: string[]): string => execFileSync("git", args, { cwd: dir, encoding: "utf8" });
  git("init", "-q", "-b", "main");
  await writeFile(path.join(dir, "results.txt"), "ok a\nFAIL: old_test\n");
  git("add", ".");
  git("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "start");
  return {
    workspace: dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    knownSecrets: [],
    defaultTimeoutMs: 20_000,
    now: Date.now,
  };
}

test("new failure lines are the compare output's matches the baseline did not have", () => {
  const found = findNewFailures(
    "FAIL: a\nok b\nFAIL: c\nFAIL: a\n",
    "FAIL: a\nFAIL: d\nerror[E0308]: mismatched\nFAIL: d\n",
    ["^FAIL:", "(?i)ERROR\\[E\\d+\\]"],
  );
  assert.deepEqual(found, {
    ok: true,
    baseline: ["FAIL: a", "FAIL: c"],
    current: ["FAIL: a", "FAIL: d", "error[E0308]: mismatched"],
    added: ["FAIL: d", "error[E0308]: mismatched"],
    fixed: ["FAIL: c"],
    firstMatched: "^FAIL:",
  });
  assert.deepEqual(findNewFailures("x", "FAIL", []), {
    ok: true,
    baseline: [],
    current: [],
    added: [],
    fixed: [],
  });
  const bad = findNewFailures("", "", ["(unclosed"]);
  assert.equal(bad.ok, false);
  assert.match(bad.ok ? "" : bad.problem, /"\(unclosed" is not a valid regular expression/);
});

const config = (policy?: string, compare = "cat results.txt"): ChangeImpactConfig =>
  ChangeImpactConfig.parse({
    baseline_command: "cat results.txt; touch made-by-baseline.txt",
    compare_command: compare,
    failure_patterns: ["^FAIL:"],
    ...(policy === undefined ? {} : { policy }),
  });

test("policy fail (the default): a new failure line fails the stage, naming the pattern and the line", async (t) => {
  const ctx = await repo(t);
  const undone: string[][] = [];
  const baseline = await captureBaseline(config(), stage, ctx, { head: "f".repeat(40) }, (p) =>
    undone.push(p),
  );
  assert.equal(baseline?.ran, true);
  // The baseline command's new file is gone: the session's leftovers commit must not carry it.
  assert.deepEqual(undone, [["made-by-baseline.txt"]]);
  assert.deepEqual((await readdir(ctx.workspace)).sort(), [".git", "results.txt"]);
  await writeFile(path.join(ctx.workspace, "results.txt"), "ok a\nFAIL: new_test\n");
  const check = await compareChangeImpact(config(), baseline, stage, ctx);
  assert.equal(check.kind, "change_impact");
  assert.equal(check.passed, false);
  assert.match(
    check.output_tail,
    /^1 new failure line\(s\) since the baseline \(policy: fail\), first matching "\^FAIL:": FAIL: new_test\n/,
  );
  assert.match(check.output_tail, /baseline at ffffffffffff: 1 failure line\(s\); now: 1; fixed: 1/);
  assert.match(check.output_tail, /\+ FAIL: new_test\nfixed:\n- FAIL: old_test/);
  const verdict = decideStageOutcome({
    kind: "stage",
    stageType: "standard",
    session: { status: "completed", reason: "done" },
    commits: [{ sha: "a".repeat(40), subject: "x" }],
    checks: [check],
    permissionDenials: [],
  });
  assert.equal(verdict.outcome, "completed-with-failures");
  assert.match(
    verdict.reason,
    /first: change_impact: 1 new failure line\(s\) .* first matching "\^FAIL:": FAIL: new_test/,
  );
});

test("policy warn passes with a warning; no new lines pass; skip runs nothing", async (t) => {
  const ctx = await repo(t);
  const baseline = await captureBaseline(config("warn"), stage, ctx, { head: "f".repeat(40) }, () => {});
  const same = await compareChangeImpact(config("warn"), baseline!, stage, ctx);
  assert.deepEqual([same.passed, same.warned], [true, undefined]);
  assert.match(same.output_tail, /^no new failure lines/);
  await writeFile(path.join(ctx.workspace, "results.txt"), "FAIL: other\n");
  const warned = await compareChangeImpact(config("warn"), baseline!, stage, ctx);
  assert.deepEqual([warned.passed, warned.warned], [true, true]);
  assert.match(warned.output_tail, /policy: warn/);
  assert.equal(await captureBaseline(config("skip"), stage, ctx, { head: "f".repeat(40) }, () => {}), null);
  assert.equal(await captureBaseline(undefined, stage, ctx, { head: "f".repeat(40) }, () => {}), null);
});

test("a comparison that cannot be made warns, as the reference skips it; it never passes silently", async (t) => {
  const ctx = await repo(t);
  const broken = ChangeImpactConfig.parse({ baseline_command: "sleep 5", failure_patterns: ["FAIL"] });
  const baseline = await captureBaseline(
    broken,
    stage,
    { ...ctx, defaultTimeoutMs: 300 },
    { head: "f".repeat(40) },
    () => {},
  );
  assert.equal(baseline?.ran, false);
  const check = await compareChangeImpact(broken, baseline, stage, ctx);
  assert.deepEqual([check.passed, check.warned], [true, true]);
  assert.match(check.output_tail, /^not compared: the baseline command timed out after 0 s/);
  const ok = await captureBaseline(config(), stage, ctx, { head: "f".repeat(40) }, () => {});
  const gone = await compareChangeImpact(config(undefined, "exit-127-no-such-command"), ok!, stage, ctx);
  assert.equal(gone.passed, true, "a compare command that fails still has output to compare");
});

test("a retry's baseline is taken where its branch left the merge point, so earlier attempts' breakage counts", async (t) => {
  const ctx = await repo(t);
  const git = (...args: string[]): string =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], {
      cwd: ctx.workspace,
      encoding: "utf8",
    }).trim();
  const mergePoint = git("rev-parse", "HEAD");
  git("update-ref", "refs/remotes/origin/main", mergePoint);
  git("checkout", "-q", "-b", "loom/pr-1/P/s");
  await writeFile(
    path.join(ctx.workspace, "results.txt"),
    "ok a\nFAIL: old_test\nFAIL: broken_by_attempt_1\n",
  );
  git("commit", "-q", "-am", "attempt 1");
  const head = git("rev-parse", "HEAD");
  assert.equal(await findForkPoint(ctx.workspace, "main"), mergePoint);
  assert.equal(await findForkPoint(ctx.workspace, "not-fetched"), null);

  const baseline = await captureBaseline(config(), stage, ctx, { head, forkPoint: mergePoint }, () => {});
  assert.deepEqual([baseline?.sha, baseline?.note], [mergePoint, undefined]);
  assert.equal(git("symbolic-ref", "--short", "HEAD"), "loom/pr-1/P/s", "back on the stage branch");
  assert.equal(git("rev-parse", "HEAD"), head);
  assert.equal(git("status", "--porcelain"), "");
  const check = await compareChangeImpact(config(), baseline!, stage, ctx);
  assert.equal(check.passed, false);
  assert.match(check.output_tail, /FAIL: broken_by_attempt_1/);

  const unknown = await captureBaseline(config(), stage, ctx, { head, forkPoint: null }, () => {});
  assert.equal(unknown?.sha, head);
  const atStart = await compareChangeImpact(config(), unknown, stage, ctx);
  assert.equal(atStart.passed, true);
  assert.match(
    atStart.output_tail,
    /\(baseline taken on the attempt's start: the merge point's history was not fetched/,
  );
});
