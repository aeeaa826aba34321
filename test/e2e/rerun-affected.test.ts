import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { CheckRunRecord } from "../emulator/emulator-state.ts";
import type { Dispatch, PullRecord } from "./e2e-requests.ts";
import { dispatchesOf, mergesOfStage } from "./e2e-requests.ts";
import { FILES_DIAMOND } from "./sample-plans.ts";
import { startE2E, type E2E } from "./harness.ts";
import { inSequence, rewriteFile, scriptStages, writeFiles } from "./model-script.ts";

const PLAN_PATH = FILES_DIAMOND.path;
const PLAN = FILES_DIAMOND.text;

const merged = (e2e: E2E, stage: string) => mergesOfStage(e2e.emulator.requests, stage);

/**
 * Issue 35 items 1, 2 and 6 through the real app, the real stage workflow and action and the real
 * Claude Code, on one finished diamond (a → b, c → d), scenario after scenario: a person's push
 * under b's `files` lists b and d as affected (with the path and the forecast) and `/loom rerun
 * affected` re-runs b, then d, never a or c; then `/loom retry a --only` re-runs a alone. Every
 * merge is by the SHA the checks ran on; the check runs and the comment say why each ran again.
 */
describe(
  "after the first run: re-run what a push affects, and one finished stage alone",
  { timeout: 600_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let planAfterPush: CheckRunRecord | undefined;
    let afterPush: Dispatch[] = [];
    let afterRetry: Dispatch[] = [];
    let afterCascade: Dispatch[] = [];
    let afterEdit: Dispatch[] = [];
    let planAfterEdit: CheckRunRecord | undefined;
    /** Each session's prompt (its first model request's messages, as JSON), by `<stage>:<attempt>`. */
    const prompts = new Map<string, string>();
    const sessions = new Map<number, string>();
    /** What the branch and the check runs showed after each scenario (later ones change them). */
    const seen: Record<string, string> = {};
    const look = async (scenario: string, files: string[], checks: string[]) => {
      for (const file of files) seen[`${scenario}:${file}`] = (await e2e.readFile(pull.headRef, file)) ?? "";
      const runs = await e2e.checkRuns(pull);
      for (const name of checks)
        seen[`${scenario}:${name}`] = runs.findLast((r) => r.name === name)?.output.summary ?? "";
      seen[`${scenario}:comment`] = e2e.statusComment(pull)?.body ?? "";
    };
    before(async () => {
      e2e = await startE2E({
        script: scriptStages({
          a: writeFiles({ "a.txt": "alpha\n" }),
          "a:2": rewriteFile("a.txt", "alpha, again\n"),
          // a's third run also changes c.txt, under c's files (and nothing under b's).
          "a:3": inSequence(rewriteFile("a.txt", "alpha, third\n"), rewriteFile("c.txt", "gamma, from a\n")),
          "c:2": rewriteFile("c.txt", "gamma\n"),
          // A stage session that commits nothing fails its stage: each re-run changes its file.
          "c:3": rewriteFile("c.txt", "gamma, checked\n"),
          "d:3": rewriteFile("d.txt", "delta, third\n"),
          b: writeFiles({ "b/b.txt": "beta\n" }),
          "b:2": rewriteFile("b/b.txt", "beta, with the fix\n"),
          c: writeFiles({ "c.txt": "gamma\n" }),
          d: writeFiles({ "d.txt": "delta\n" }),
          "d:2": rewriteFile("d.txt", "delta, again\n"),
        }),
        onRunnerEvent: (event) => {
          if (event.type === "run.started")
            sessions.set(event.runId, `${event.job.stageId}:${event.job.attempt}`);
          const first =
            event.type === "job.finished" ? event.modelRequests?.find((r) => r.kind === "main") : undefined;
          const session = sessions.get(event.runId);
          if (first !== undefined && session !== undefined)
            prompts.set(session, JSON.stringify(first.body?.messages ?? []));
        },
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      await e2e.waitForPlanEnd(pull, "PLAN-diamond", 4, 240_000);
      await e2e.app.engine.idle();
      const before = dispatchesOf(e2e.emulator.requests).length;

      await e2e.emulator.as("alice").push(pull.headRef, { "b/fix.txt": "a person's fix\n" });
      planAfterPush = await e2e.waitFor("the plan's check run to list the affected stages", async () =>
        (await e2e.checkRuns(pull)).find(
          (r) => r.name === "loom: PLAN-diamond" && (r.output.summary ?? "").includes("**Affected by"),
        ),
      );
      await e2e.emulator.as("alice").comment(pull.number, "/loom rerun affected");
      await e2e.waitFor("b and d merged again", () => merged(e2e, "d").length >= 2, 150_000);
      await e2e.app.engine.idle();
      afterPush = dispatchesOf(e2e.emulator.requests).slice(before);
      await look("push", ["b/b.txt", "b/fix.txt", "d.txt"], ["loom: b", "loom: d"]);

      const beforeRetry = dispatchesOf(e2e.emulator.requests).length;
      await e2e.emulator.as("alice").comment(pull.number, "/loom retry a --only");
      await e2e.waitFor("a merged again", () => merged(e2e, "a").length >= 2, 120_000);
      await e2e.app.engine.idle();
      afterRetry = dispatchesOf(e2e.emulator.requests).slice(beforeRetry);
      await look("only", ["a.txt"], []);

      const beforeCascade = dispatchesOf(e2e.emulator.requests).length;
      await e2e.emulator.as("alice").comment(pull.number, "/loom retry a");
      await e2e.waitFor("c merged again after a", () => merged(e2e, "c").length >= 2, 150_000);
      await e2e.app.engine.idle();
      afterCascade = dispatchesOf(e2e.emulator.requests).slice(beforeCascade);
      await look("retry", ["c.txt"], ["loom: c"]);

      // A person edits c's acceptance in the plan file, wherever loom's renames left it.
      let current = PLAN_PATH;
      for (const file of ["doc/plans/DONE-PLAN-diamond.md", "doc/plans/IN_PROGRESS-PLAN-diamond.md"])
        if ((await e2e.readFile(pull.headRef, file)) !== null) current = file;
      const text = (await e2e.readFile(pull.headRef, current)) ?? "";
      const edited = text.replace(
        'acceptance: ["grep -q gamma c.txt"]',
        'acceptance: ["grep -q gamma c.txt", "test -s c.txt"]',
      );
      assert.notEqual(edited, text);
      const beforeEdit = dispatchesOf(e2e.emulator.requests).length;
      await e2e.emulator.as("alice").push(pull.headRef, { [current]: edited });
      planAfterEdit = await e2e.waitFor("the plan's check run to list the plan edit's stages", async () =>
        (await e2e.checkRuns(pull)).find(
          (r) =>
            r.name === "loom: PLAN-diamond" &&
            (r.output.summary ?? "").includes("**Affected by the plan edit"),
        ),
      );
      await e2e.emulator.as("alice").comment(pull.number, "/loom rerun affected");
      await e2e.waitFor("d merged again after the plan edit", () => merged(e2e, "d").length >= 3, 150_000);
      await e2e.app.engine.idle();
      afterEdit = dispatchesOf(e2e.emulator.requests).slice(beforeEdit);
    });
    after(async () => {
      await e2e?.close();
    });

    it("lists b (with the path) and d (downstream) as affected, with the forecast and a Re-run affected button, before running anything", () => {
      const summary = planAfterPush?.output.summary ?? "";
      assert.match(summary, /\*\*Affected by the push of [0-9a-f]{7}\*\* \(2 completed stages, forecast \$/);
      assert.match(summary, /- `b`: the push of [0-9a-f]{7} changed 'b\/fix.txt'\n- `d`: downstream of 'b'/);
      assert.deepEqual(
        planAfterPush?.actions.map((a) => a.identifier),
        ["rerun-affected"],
      );
      assert.equal(planAfterPush?.conclusion, "success");
    });

    it("re-runs b, then d, never a or c, each merged by the SHA its checks ran on", () => {
      assert.deepEqual(
        afterPush.map((d) => [d.stageId, d.attempt]),
        [
          ["b", "2"],
          ["d", "2"],
        ],
        e2e.describe(),
      );
      for (const stage of ["b", "d"])
        assert.ok(
          merged(e2e, stage).every((m) => m.sha !== null),
          stage,
        );
      assert.equal(seen["push:b/b.txt"], "beta, with the fix\n");
      assert.equal(seen["push:b/fix.txt"], "a person's fix\n");
      assert.equal(seen["push:d.txt"], "delta, again\n");
    });

    it("says on b's and d's check runs and in the status comment why each ran again", () => {
      const summaryOf = (name: string) => seen[`push:${name}`] ?? "";
      assert.match(
        summaryOf("loom: b"),
        /\*\*Re-run:\*\* the push of [0-9a-f]{7} changed 'b\/fix.txt'; re-run by @&#8203;alice/,
      );
      assert.match(summaryOf("loom: d"), /\*\*Re-run:\*\* downstream of 'b'; re-run by @&#8203;alice/);
      assert.match(summaryOf("loom: b"), /\| 2 \| stage \(re-run\) \|/);
      assert.match(seen["push:comment"] ?? "", /re-run: downstream of 'b'/);
    });

    it("tells each re-run session why it runs again: what landed since loom merged its work, with the paths", () => {
      const b = prompts.get("b:2") ?? "";
      assert.match(b, /## This Stage Ran Before/);
      assert.match(b, /<commits>\\n[0-9a-f]{7,} alice: Update b\/fix\.txt/, "alice's push, by her");
      const paths = (prompt: string) => /<paths>\\n(.*?)\\n<\/paths>/.exec(prompt)?.[1]?.split("\\n") ?? [];
      assert.ok(paths(b).includes("b/fix.txt"), b);
      // d builds on b: b's new merge (b/b.txt) and alice's push landed since d's merge.
      const d = prompts.get("d:2") ?? "";
      const commits = /<commits>\\n(.*?)\\n<\/commits>/.exec(d)?.[1]?.split("\\n") ?? [];
      assert.ok(
        commits.some((line) => /^[0-9a-f]{7,} .*: loom: merge stage b \(Left\) of PLAN-diamond$/.test(line)),
        d,
      );
      assert.ok(
        ["b/b.txt", "b/fix.txt"].every((path) => paths(d).includes(path)),
        d,
      );
      assert.ok(paths(prompts.get("c:2") ?? "").includes("c.txt"), "a's re-run changed c.txt");
      for (const first of ["a:1", "b:1", "c:1", "d:1"]) {
        assert.ok(prompts.has(first), `${first}'s prompt was recorded`);
        assert.doesNotMatch(prompts.get(first) ?? "", /## This Stage Ran Before/, first);
      }
    });

    it("/loom retry a --only re-runs a alone and merges it by SHA", () => {
      assert.deepEqual(
        afterRetry.map((d) => [d.stageId, d.attempt]),
        [["a", "2"]],
        e2e.describe(),
      );
      assert.ok(merged(e2e, "a").every((m) => m.sha !== null));
      assert.equal(seen["only:a.txt"], "alpha, again\n");
    });

    it("/loom retry a re-runs a, then only c, whose files a's new merge changed (not b, not d)", () => {
      assert.deepEqual(
        afterCascade.map((d) => [d.stageId, d.attempt]),
        [
          ["a", "3"],
          ["c", "2"],
        ],
        e2e.describe(),
      );
      assert.equal(seen["retry:c.txt"], "gamma\n");
      assert.match(
        seen["retry:loom: c"] ?? "",
        /\*\*Re-run:\*\* a's re-run changed 'c.txt', which it builds on/,
      );
    });

    it("a plan edit that changes c's acceptance affects c and d only; /loom rerun affected re-runs them", () => {
      assert.match(
        planAfterEdit?.output.summary ?? "",
        /- `c`: its definition changed in the plan file\n- `d`: downstream of 'c'\n/,
      );
      assert.deepEqual(
        afterEdit.map((d) => [d.stageId, d.attempt]),
        [
          ["c", "3"],
          ["d", "3"],
        ],
        e2e.describe(),
      );
    });

    it("made only requests GitHub's OpenAPI description allows", () => {
      e2e.emulator.assertNoViolations();
    });
  },
);
