import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { runStage } from "../../action/src/run-stage.ts";
import { deps, finishedSession, git, inputs, makeFixture, PLAN_PATH } from "./run-stage-fixture.ts";

const STAGE = `
- id: build
  name: Build the greeter
  description: Write greet.txt
  setup: ["export WHO=hello"]
  acceptance: ['grep -q "$WHO" greet.txt']
  code_review: {dimensions: [security, testing]}
`;

test("runStage judges a session by its setup, its review report and the plan's change_impact", async (t) => {
  const f = await makeFixture(STAGE, t);
  // change_impact is plan-level: add it to the committed plan.
  const plan = path.join(f.workspace, PLAN_PATH);
  const text = (await readFile(plan, "utf8")).replace(
    "  version: 1\n",
    '  version: 1\n  change_impact: {baseline_command: "cat status.txt 2>/dev/null; echo x > made-by-baseline.txt", compare_command: "cat status.txt", failure_patterns: ["^BROKEN"]}\n',
  );
  await writeFile(plan, text);
  git(f.workspace, "commit", "-q", "-am", "change_impact");
  let prompt = "";
  const { result } = await runStage(
    inputs(),
    deps(f, async (o) => {
      prompt = o.prompt;
      await writeFile(path.join(o.cwd, "greet.txt"), "hello\n");
      await writeFile(path.join(o.cwd, "status.txt"), "BROKEN: greeter is rude\n");
      return finishedSession(o, {
        resultText: "Recorded.",
        reviewText: "Done.\n\n## Code Review\n### security\nNo input reaches a shell.\n",
      });
    }),
  );
  assert.match(prompt, /## Review Dimensions/);
  assert.deepEqual(
    result.checks.map((c) => [c.kind, c.name, c.passed]),
    [
      ["setup", "export WHO=hello", true],
      ["acceptance", 'grep -q "$WHO" greet.txt', true],
      ["change_impact", "cat status.txt", false],
      ["code_review", "security", true],
      ["code_review", "testing", false],
    ],
  );
  assert.equal(result.outcome, "completed-with-failures");
  assert.match(
    result.reason,
    /^2 of 5 checks failed, first: change_impact: 1 new failure line\(s\) since the baseline \(policy: fail\), first matching "\^BROKEN": BROKEN: greeter is rude$/,
  );
  // What the baseline command wrote before the session is not the session's work.
  const committed = git(f.workspace, "show", "--name-only", "--format=", "HEAD").split("\n").sort();
  assert.deepEqual(committed, ["greet.txt", "status.txt"]);
});
