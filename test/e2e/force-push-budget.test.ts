import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { CheckRunRecord } from "../emulator/emulator-state.ts";
import { runGitOk } from "../emulator/run-git.ts";
import type { Dispatch, PullRecord } from "./e2e-requests.ts";
import { dispatchesOf, mergesOfStage } from "./e2e-requests.ts";
import { FILES_DIAMOND } from "./sample-plans.ts";
import { startE2E, type E2E } from "./harness.ts";
import { rewriteFile, scriptStages, writeFiles, type StageScript } from "./model-script.ts";

const PLAN_PATH = FILES_DIAMOND.path;
const PLAN = FILES_DIAMOND.text;

/**
 * Every model answer of the session reports 40,000 output tokens: about $1 a turn at the pinned
 * Claude Code's default model ($25 per million output tokens), so a stage of two or three turns costs
 * $2–3 and the plan's spend is known to the dollar (the default 20 tokens would cost a tenth of a cent).
 */
const priced =
  (script: StageScript): StageScript =>
  (job) =>
    script(job).map((turn) => ({ ...turn, usage: { ...turn.usage, output_tokens: 40_000 } }));

/**
 * A budget the first run fits and a re-run of two stages does not. Before any stage completed the
 * forecast is $1 a stage ($4); each first session costs about $2 (two turns), so the first run
 * forecasts and spends about $8; re-running b and d is forecast at the plan's average, $2 each:
 * about $12, over $11.
 */
const LOOM_CONFIG = ["workflow: loom.yml", "budget:", "  plan_usd: 11", "  stage_estimate_usd: 1", ""].join(
  "\n",
);

/** A check run as it was when read: the emulator updates its records in place. */
const snapshot = (run: CheckRunRecord | undefined) => (run === undefined ? undefined : structuredClone(run));

const merged = (e2e: E2E, stage: string) => mergesOfStage(e2e.emulator.requests, stage);

/**
 * Issue 35 items 4 and 6 through the real app, the real stage workflow and action and the real
 * Claude Code, on one finished diamond (a → b, c → d): an affected re-run that does not fit the
 * plan's budget waits with the reason until `/loom budget +N`; then a person's force-push (real
 * `git push --force` over HTTP) that keeps a's and c's merges and drops b's: b is merged again by
 * the commit its checks ran on, d is affected, a and c are not touched.
 */
describe(
  "after the first run: a re-run waits for budget, and a force-push that drops one stage's merge",
  { timeout: 600_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let work: string;
    let planWaiting: CheckRunRecord | undefined;
    let stageWaiting: CheckRunRecord | undefined;
    let commentWaiting = "";
    let dispatchesWhileWaiting: Dispatch[] = [];
    let afterRaise: Dispatch[] = [];
    let forced = "";
    let planAfterForce: CheckRunRecord | undefined;
    let afterForce: Dispatch[] = [];
    let mergesBeforeForce: Record<string, number> = {};
    let checkedBeforeForce: Record<string, string | null> = {};
    const seen: Record<string, string> = {};

    before(async () => {
      work = await mkdtemp(path.join(tmpdir(), "loom-force-push-"));
      e2e = await startE2E({
        loomConfig: LOOM_CONFIG,
        script: scriptStages({
          a: priced(writeFiles({ "a.txt": "alpha\n" })),
          b: priced(writeFiles({ "b/b.txt": "beta\n" })),
          "b:2": priced(rewriteFile("b/b.txt", "beta, with the fix\n")),
          c: priced(writeFiles({ "c.txt": "gamma\n" })),
          d: priced(writeFiles({ "d.txt": "delta\n" })),
          "d:2": priced(rewriteFile("d.txt", "delta, again\n")),
        }),
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      await e2e.waitForPlanEnd(pull, "PLAN-diamond", 4, 240_000);
      await e2e.app.engine.idle();

      // A push under b's files; re-running b and d does not fit the budget.
      await e2e.emulator.as("alice").push(pull.headRef, { "b/fix.txt": "a person's fix\n" });
      await e2e.waitFor("the plan's check run to list the affected stages", async () =>
        (await e2e.checkRuns(pull)).find(
          (r) => r.name === "loom: PLAN-diamond" && (r.output.summary ?? "").includes("**Affected by"),
        ),
      );
      const beforeRerun = dispatchesOf(e2e.emulator.requests).length;
      await e2e.emulator.as("alice").comment(pull.number, "/loom rerun affected");
      planWaiting = await e2e.waitFor("the plan's check run to wait for budget", async () =>
        (await e2e.checkRuns(pull)).find(
          (r) =>
            r.name === "loom: PLAN-diamond" &&
            (r.output.summary ?? "").includes("waits: the plan's forecast"),
        ),
      );
      await e2e.app.engine.idle();
      const waiting = await e2e.checkRuns(pull);
      planWaiting = snapshot(waiting.find((r) => r.name === "loom: PLAN-diamond"));
      stageWaiting = snapshot(waiting.find((r) => r.name === "loom: b"));
      commentWaiting = e2e.statusComment(pull)?.body ?? "";
      dispatchesWhileWaiting = dispatchesOf(e2e.emulator.requests).slice(beforeRerun);

      await e2e.emulator.as("alice").comment(pull.number, "/loom budget +20");
      await e2e.waitFor("b and d merged again", () => merged(e2e, "d").length >= 2, 150_000);
      await e2e.app.engine.idle();
      afterRaise = dispatchesOf(e2e.emulator.requests).slice(beforeRerun);
      for (const file of ["b/b.txt", "d.txt"])
        seen[`raise:${file}`] = (await e2e.readFile(pull.headRef, file)) ?? "";

      // The commits each stage was merged by (what its checks ran on), newest first.
      const checked = (stage: string) => merged(e2e, stage).at(-1)?.sha ?? null;
      checkedBeforeForce = Object.fromEntries(["a", "b", "c", "d"].map((id) => [id, checked(id)]));
      mergesBeforeForce = Object.fromEntries(["a", "b", "c", "d"].map((id) => [id, merged(e2e, id).length]));

      // Alice rewrites the branch: a's and c's work kept, b's dropped (d's with it, it holds b's),
      // the plan file as it is now; then `git push --force`, as a person does.
      const url = new URL(e2e.emulator.cloneUrl());
      url.username = "x-access-token";
      url.password = e2e.emulator.tokenFor("alice");
      const clone = path.join(work, "clone");
      const identity = ["-c", "user.name=alice", "-c", "user.email=alice@users.noreply.example.invalid"];
      await runGitOk(work, ["clone", "--quiet", "--branch", pull.headRef, url.toString(), clone]);
      const head = (await runGitOk(clone, ["rev-parse", "HEAD"])).trim();
      await runGitOk(clone, ["checkout", "--quiet", "-B", "rewrite", checkedBeforeForce["a"] ?? ""]);
      await runGitOk(clone, [
        ...identity,
        "merge",
        "--quiet",
        "--no-ff",
        "-m",
        "Keep c",
        checkedBeforeForce["c"] ?? "",
      ]);
      await runGitOk(clone, ["rm", "-r", "--quiet", "doc/plans"]);
      await runGitOk(clone, ["checkout", head, "--", "doc/plans"]);
      await runGitOk(clone, [
        ...identity,
        "commit",
        "--quiet",
        "-m",
        "Drop b's work; keep the plan as it is",
      ]);
      forced = (await runGitOk(clone, ["rev-parse", "HEAD"])).trim();
      const beforeForce = dispatchesOf(e2e.emulator.requests).length;
      await runGitOk(clone, ["push", "--quiet", "--force", "origin", `HEAD:refs/heads/${pull.headRef}`]);
      planAfterForce = await e2e.waitFor("the plan's check run to list d after the force-push", async () =>
        (await e2e.checkRuns(pull)).find(
          (r) =>
            r.name === "loom: PLAN-diamond" &&
            (r.output.summary ?? "").includes(`**Affected by the push of ${forced.slice(0, 7)}`),
        ),
      );
      await e2e.waitFor(
        "b merged again",
        () => merged(e2e, "b").length > (mergesBeforeForce["b"] ?? 0),
        60_000,
      );
      await e2e.app.engine.idle();
      const runs = await e2e.checkRuns(pull);
      planAfterForce = snapshot(runs.find((r) => r.name === "loom: PLAN-diamond"));
      seen["force:note:b"] = runs.find((r) => r.name === "loom: b")?.output.summary ?? "";
      afterForce = dispatchesOf(e2e.emulator.requests).slice(beforeForce);
      for (const file of ["a.txt", "b/b.txt", "c.txt"])
        seen[`force:${file}`] = (await e2e.readFile(pull.headRef, file)) ?? "";
    });
    after(async () => {
      await e2e?.close();
      await rm(work, { recursive: true, force: true });
    });

    it("holds the affected re-run while its forecast is over the budget, saying why on the plan's and b's check runs and in the comment", () => {
      assert.deepEqual(dispatchesWhileWaiting, [], e2e.describe());
      assert.equal(planWaiting?.conclusion, "action_required");
      assert.match(
        planWaiting?.output.summary ?? "",
        /⏸ `b` waits: the plan's forecast is \$12\.\d\d \(\$8\.\d\d spent, 2 stages ahead at \$2\.\d\d each, the plan's average per completed stage\), over its \$11\.00 budget; someone with write access raises the budget with `\/loom budget \+<usd>`/,
      );
      assert.match(
        stageWaiting?.output.summary ?? "",
        /waiting for budget: the plan's forecast is \$12\.\d\d/,
      );
      assert.match(commentWaiting, /waiting for budget \(`\/loom budget \+<usd>`\)/);
      assert.match(commentWaiting, /⏸ `b` waits for `\/loom budget \+<usd>`/);
    });

    it("/loom budget +20 releases it: b, then d, re-run and merged by the SHA their checks ran on", () => {
      assert.deepEqual(
        afterRaise.map((d) => [d.stageId, d.attempt]),
        [
          ["b", "2"],
          ["d", "2"],
        ],
        e2e.describe(),
      );
      assert.equal(seen["raise:b/b.txt"], "beta, with the fix\n");
      assert.equal(seen["raise:d.txt"], "delta, again\n");
      for (const stage of ["b", "d"])
        assert.ok(
          merged(e2e, stage).every((m) => m.sha !== null),
          stage,
        );
    });

    it("a force-push that drops b's merge: b is merged again by the commit its checks ran on, d is affected, a and c are not touched", () => {
      assert.deepEqual(afterForce, [], "nothing runs again on its own: b's checked commit is merged again");
      const again = merged(e2e, "b").slice(mergesBeforeForce["b"]);
      assert.deepEqual(
        again.map((m) => m.sha),
        [checkedBeforeForce["b"]],
        e2e.describe(),
      );
      for (const stage of ["a", "c"])
        assert.equal(merged(e2e, stage).length, mergesBeforeForce[stage], `${stage} is not merged again`);
      assert.equal(seen["force:a.txt"], "alpha\n");
      assert.equal(seen["force:b/b.txt"], "beta, with the fix\n");
      assert.equal(seen["force:c.txt"], "gamma\n");
      const summary = planAfterForce?.output.summary ?? "";
      assert.match(
        summary,
        new RegExp(
          `\\*\\*Affected by the push of ${forced.slice(0, 7)}\\*\\* \\(1 completed stage, forecast \\$`,
        ),
      );
      assert.match(summary, /- `d`: it builds on 'b', whose merge the push dropped\n/);
      assert.doesNotMatch(summary, /- `[ac]`:/);
      assert.deepEqual(
        planAfterForce?.actions.map((a) => a.identifier),
        ["rerun-affected"],
      );
      assert.match(
        seen["force:note:b"] ?? "",
        new RegExp(
          `no longer contains ${(checkedBeforeForce["b"] ?? "").slice(0, 7)} \\(a push rewrote its history\\); merging the stage again`,
        ),
      );
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
    });
  },
);
