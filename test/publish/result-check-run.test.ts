import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { runPublish } from "../../action/src/publish/run-publish.ts";
import {
  formatResultCheckRun,
  parseResultCheckRun,
  RESULT_CHECK_RUN_MAX_TEXT,
  RESULT_CHECK_RUN_NAME,
  type ResultCheckRun,
} from "../../src/artifacts/result-check-run.ts";
import { BRANCH, PublishFixture, PUBLISH_INPUTS } from "./git-fixture.ts";

/*
 * After it pushed the stage's work, the publish job reports the run's outcome as the `loom result`
 * check run on the pushed commit (the App reads it from the webhook, not from artifacts); after
 * uploading `loom-publish`, redacted like every way out, and never at the cost of the push.
 */

let fixture: PublishFixture | undefined;
afterEach(() => fixture?.cleanup());

type Reported = { check: ResultCheckRun; sha: string; uploadsBefore: number };

async function publishReporting(
  f: PublishFixture,
  options: { runId?: number; knownSecrets?: string[]; fail?: Error } = {},
): Promise<{ reported: Reported[]; result: Awaited<ReturnType<typeof runPublish>> }> {
  const reported: Reported[] = [];
  const result = await runPublish({
    workspace: f.workspace,
    tempDir: f.tempDir,
    inputs: PUBLISH_INPUTS,
    knownSecrets: options.knownSecrets ?? [],
    ...(options.runId === undefined ? {} : { runId: options.runId }),
    deps: {
      ...f.deps,
      reportResult: (check, sha) => {
        reported.push({ check, sha, uploadsBefore: f.uploads.length });
        return options.fail ? Promise.reject(options.fail) : Promise.resolve();
      },
    },
  });
  return { reported, result };
}

describe("publish: the loom result check run", () => {
  it("is created on the pushed commit after loom-publish is uploaded, carrying the run's result and the publish result", async () => {
    const f = (fixture = new PublishFixture());
    const head = f.commit("Add the API", { "src/api.ts": "export const api = 1;\n" });
    f.bundle();
    f.result([], { cost_usd: 0.25 });
    const { reported, result } = await publishReporting(f, { runId: 4711 });
    assert.equal(result.pushed_sha, head);
    assert.equal(reported.length, 1);
    const [{ check, sha, uploadsBefore }] = reported as [Reported];
    assert.equal(sha, head);
    assert.equal(uploadsBefore, 1, "loom-publish was uploaded first");
    assert.equal(check.name, RESULT_CHECK_RUN_NAME);
    const carried = parseResultCheckRun(check.text);
    assert.ok(carried);
    assert.equal(carried.run_id, 4711);
    assert.equal(carried.result.cost_usd, 0.25);
    assert.deepEqual(carried.publish, result);
    assert.equal(f.originRef(BRANCH), head);
  });

  it("is not created when nothing was pushed, without a run id, or without the run's result", async () => {
    const nothing = (fixture = new PublishFixture());
    nothing.bundle();
    nothing.result([]);
    assert.deepEqual((await publishReporting(nothing, { runId: 1 })).reported, []);
    nothing.cleanup();

    const noRun = (fixture = new PublishFixture());
    noRun.commit("Work", { "src/a.ts": "1\n" });
    noRun.bundle();
    noRun.result([]);
    assert.deepEqual((await publishReporting(noRun)).reported, []);
    noRun.cleanup();

    const noResult = (fixture = new PublishFixture());
    noResult.commit("Work", { "src/a.ts": "1\n" });
    noResult.bundle();
    assert.deepEqual((await publishReporting(noResult, { runId: 1 })).reported, []);
  });

  it("redacts the job's own secrets from its text", async () => {
    const f = (fixture = new PublishFixture());
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    const secret = `tok-${"q".repeat(24)}`;
    f.result([], { reason: `finished with ${secret}` });
    const { reported } = await publishReporting(f, { runId: 9, knownSecrets: [secret] });
    const text = JSON.stringify(reported[0]?.check);
    assert.ok(!text.includes(secret), "the secret does not leave through the check run");
    assert.match(reported[0]?.check.text ?? "", /REDACTED/);
  });

  it("a failure to create it is logged and changes nothing else: the push stands and the result is returned", async () => {
    const f = (fixture = new PublishFixture());
    const head = f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    f.result([]);
    const { result } = await publishReporting(f, {
      runId: 9,
      fail: new Error("Resource not accessible by integration"),
    });
    assert.equal(result.ok, true);
    assert.equal(f.originRef(BRANCH), head);
    assert.ok(
      f.logs.some((line) =>
        line.includes("could not create the loom result check run (Resource not accessible by integration)"),
      ),
      f.logs.join("\n"),
    );
  });
});

describe("publish: a loom result check run only for the run's own readable result", () => {
  it("without a reporter (no token or repository) nothing is attempted and nothing is logged of it", async () => {
    const f = (fixture = new PublishFixture());
    const head = f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    f.result([]);
    const result = await runPublish({
      workspace: f.workspace,
      tempDir: f.tempDir,
      inputs: PUBLISH_INPUTS,
      knownSecrets: [],
      runId: 9,
      deps: f.deps,
    });
    assert.equal(result.pushed_sha, head);
    assert.ok(!f.logs.some((line) => line.includes("check run")), f.logs.join("\n"));
  });

  it("a loom-result that is no stage result, or another plan's or stage's, is not reported; the push stands", async () => {
    for (const change of [
      { outcome: "finished-somehow" },
      { plan_id: "PLAN-other" },
      { stage_id: "other" },
    ]) {
      const f = (fixture = new PublishFixture());
      const head = f.commit("Work", { "src/a.ts": "1\n" });
      f.bundle();
      f.result([], change);
      const { reported, result } = await publishReporting(f, { runId: 9 });
      assert.deepEqual(reported, [], JSON.stringify(change));
      assert.equal(result.pushed_sha, head, JSON.stringify(change));
      f.cleanup();
      fixture = undefined;
    }
  });

  it("a result too long for a check run is not reported: the log says loom reads loom-publish", async () => {
    const f = (fixture = new PublishFixture());
    const head = f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    f.result([], { deviations: Array.from({ length: 40 }, () => "x".repeat(2000)) });
    const { reported, result } = await publishReporting(f, { runId: 9 });
    assert.deepEqual(reported, []);
    assert.equal(result.pushed_sha, head);
    assert.ok(
      f.logs.includes("the run's result is too long for a check run: loom reads it from loom-publish"),
      f.logs.join("\n"),
    );
  });

  it("a failure's message is logged redacted and cut at 300 characters", async () => {
    const f = (fixture = new PublishFixture());
    f.commit("Work", { "src/a.ts": "1\n" });
    f.bundle();
    f.result([]);
    const secret = `tok-${"s".repeat(24)}`;
    await publishReporting(f, {
      runId: 9,
      knownSecrets: [secret],
      fail: new Error(`refused ${secret} ${"y".repeat(400)}`),
    });
    const line = f.logs.find((l) => l.startsWith("could not create the loom result check run"));
    assert.ok(line, f.logs.join("\n"));
    assert.ok(!line.includes(secret));
    const message = /\((.*)\): loom reads loom-publish instead$/.exec(line)?.[1];
    assert.equal(message?.length, 300);
  });
});

describe("the loom result check run's text", () => {
  const result = {
    version: 1 as const,
    plan_id: "P",
    stage_id: "s",
    attempt: 1,
    kind: "stage" as const,
    outcome: "completed" as const,
    reason: "done",
    checks: [],
    commits: [],
    head_sha: "a".repeat(40),
    turns: 1,
    tokens: { input: 0, output: 0, cache_read: 0, cache_creation: 0 },
    cost_usd: 0,
    duration_ms: 1,
    context_percent: 1,
    deviations: [],
    permission_denials: [],
  };
  const publish = {
    version: 1 as const,
    ok: true,
    plan_id: "P",
    stage_id: "s",
    branch: "b",
    commits_checked: 0,
    refusals: [],
  };

  it("leaves out the handoff (a recovery session reads it from the artifact) and reads back what was written", () => {
    const check = formatResultCheckRun({
      version: 1,
      run_id: 3,
      result: { ...result, handoff: "# notes" },
      publish,
    });
    assert.ok(check);
    assert.deepEqual(parseResultCheckRun(check.text), { version: 1, run_id: 3, result, publish });
    assert.match(check.title, /^s attempt 1: completed$/);
  });

  it("says how many checks passed", () => {
    const check = formatResultCheckRun({
      version: 1,
      run_id: 3,
      result: {
        ...result,
        checks: [
          {
            kind: "acceptance",
            name: "npm test",
            passed: true,
            exit_code: 0,
            duration_ms: 1,
            output_tail: "",
          },
          {
            kind: "acceptance",
            name: "npm run lint",
            passed: false,
            exit_code: 1,
            duration_ms: 1,
            output_tail: "",
          },
        ],
      },
      publish,
    });
    assert.equal(
      check?.summary,
      "Stage `s` of `P`, attempt 1: completed, 1 of 2 checks passed. loom reads this run's text; the stage's own check run shows it.",
    );
  });

  it("holds exactly GitHub's limit of 65,535 characters, written and read; one more is none", () => {
    // Deviations (2,000 characters each at most) fill the text to `length` exactly.
    const sized = (length: number) => {
      const deviations: string[] = [];
      const outcome = { version: 1 as const, run_id: 3, result: { ...result, deviations }, publish };
      const missing = () => length - JSON.stringify(outcome).length;
      while (missing() > 1_903) deviations.push("x".repeat(1_900));
      // A new entry costs its quotes, and a comma after the first.
      const cost = deviations.length === 0 ? 2 : 3;
      const left = missing();
      if (left >= cost) deviations.push("x".repeat(left - cost));
      else deviations[0] += "x".repeat(left);
      assert.equal(JSON.stringify(outcome).length, length);
      return outcome;
    };
    const atLimit = formatResultCheckRun(sized(RESULT_CHECK_RUN_MAX_TEXT));
    assert.equal(atLimit?.text.length, RESULT_CHECK_RUN_MAX_TEXT);
    assert.ok(parseResultCheckRun(atLimit?.text), "read back at the limit");
    assert.equal(formatResultCheckRun(sized(RESULT_CHECK_RUN_MAX_TEXT + 1)), null);
    // A text over the limit is not read even when it parses (GitHub would have refused it).
    const small = formatResultCheckRun(sized(1_000));
    assert.ok(small);
    const padded = small.text + " ".repeat(RESULT_CHECK_RUN_MAX_TEXT - small.text.length);
    assert.ok(parseResultCheckRun(padded), "whitespace up to the limit reads");
    assert.equal(parseResultCheckRun(`${padded} `), null);
  });

  it("is none when it would pass GitHub's limit, and text that is not one reads as none", () => {
    const long = { ...result, deviations: Array.from({ length: 40 }, () => "x".repeat(2000)) };
    assert.equal(formatResultCheckRun({ version: 1, run_id: 3, result: long, publish }), null);
    assert.equal(parseResultCheckRun(null), null);
    assert.equal(parseResultCheckRun("not json"), null);
    assert.equal(parseResultCheckRun(JSON.stringify({ version: 1, run_id: 3, result })), null);
    assert.equal(parseResultCheckRun(" ".repeat(RESULT_CHECK_RUN_MAX_TEXT + 1)), null);
  });
});
