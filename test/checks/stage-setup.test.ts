import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runStageChecks } from "../../action/src/checks/run-checks.ts";
import { decideStageOutcome } from "../../action/src/checks/decide-stage-outcome.ts";
import { Stage } from "../../src/plan/plan.ts";
import { renderAcceptance } from "../../src/signal/dynamic-section.ts";

async function context(t: { after: (fn: () => Promise<void>) => void }) {
  const dir = await mkdtemp(path.join(tmpdir(), "loom-setup-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await mkdir(path.join(dir, "sub"));
  return {
    workspace: dir,
    env: { PATH: process.env.PATH },
    knownSecrets: [],
    defaultTimeoutMs: 10_000,
    now: Date.now,
  };
}

test("setup runs before each acceptance command in its shell, as the reference's `setup && command`", async (t) => {
  const ctx = await context(t);
  const stage = Stage.parse({
    id: "s",
    name: "s",
    setup: ["export GREETING=hello", "cd sub"],
    acceptance: [
      { command: 'echo "$GREETING from $(basename "$PWD")"', stdout_contains: ["hello from sub"] },
      'test "$GREETING" = hello',
    ],
  });
  const results = await runStageChecks(stage, ctx);
  assert.deepEqual(
    results.map((r) => [r.kind, r.command, r.passed]),
    [
      ["setup", "export GREETING=hello && cd sub", true],
      ["acceptance", 'echo "$GREETING from $(basename "$PWD")"', true],
      ["acceptance", 'test "$GREETING" = hello', true],
    ],
  );
});

test("a failing setup command is a clear stage failure naming it; the acceptance after it does not run", async (t) => {
  const ctx = await context(t);
  const stage = Stage.parse({
    id: "s",
    name: "s",
    setup: ["true", "source .venv/bin/activate", "echo never"],
    acceptance: ["touch ran.txt"],
    artifacts: ["sub"],
  });
  const results = await runStageChecks(stage, ctx);
  assert.deepEqual(
    results.map((r) => [r.kind, r.passed]),
    [
      ["setup", false],
      ["acceptance", false],
      ["artifact", true],
    ],
  );
  assert.match(
    results[0]?.output_tail ?? "",
    /setup command 2 of 3 failed:\nsource \.venv\/bin\/activate\nexit code 1/,
  );
  assert.doesNotMatch(results[0]?.output_tail ?? "", /never/);
  assert.equal(results[1]?.output_tail, "not run: the stage's setup failed (see the setup check)");
  const verdict = decideStageOutcome({
    kind: "stage",
    stageType: "standard",
    session: { status: "completed", reason: "done" },
    commits: [{ sha: "a".repeat(40), subject: "x" }],
    checks: results,
    permissionDenials: [],
  });
  assert.match(
    verdict.reason,
    /^2 of 3 checks failed, first: setup true && source \.venv\/bin\/activate && echo never/,
  );
});

test("the session is told its acceptance commands run after the setup", () => {
  const stage = Stage.parse({ id: "s", name: "s", setup: ["cd sub"], acceptance: ["make test"] });
  const plan = {
    id: "P",
    name: "P",
    path: "P.md",
    metadata: { version: 1 as const, stages: [stage] },
    stages: [stage],
  };
  assert.match(
    renderAcceptance({ plan, stage, kind: "stage", attempt: 1, branch: "b" }),
    /after you stop, each in a shell that first runs the stage's setup \(`cd sub`\):\n\n- \[ \] `make test`/,
  );
});
