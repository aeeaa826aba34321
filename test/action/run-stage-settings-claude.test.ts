import { test } from "node:test";
import assert from "node:assert/strict";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { runStage } from "../../action/src/run-stage.ts";
import { startFakeModelServer, type FakeModelServer, type FakeTurn } from "../support/fake-model-server.ts";
import { CLAUDE_PATH, createSandbox, type Sandbox } from "../support/fake-model-sandbox.ts";
import { inputs, PLAN_PATH, planText } from "./run-stage-fixture.ts";
import { sandboxDeps } from "./sandbox-deps.ts";

/*
 * A stage's session settings reach the real Claude Code binary (scripted model on 127.0.0.1):
 * the flags are read from the process's argv through a `claude_path` wrapper that records them and
 * execs the real binary; the model and the effort from the Messages requests Claude Code sends; the
 * context budget from where the session is ended with a handoff; the tool allowlist from the
 * result line's `permission_denials` and the file the refused command would have written.
 */

const MODEL = "claude-opus-4-7";
/** The action's own defaults, which the stage's values must win over. */
const ACTION_DEFAULTS = {
  model: "claude-sonnet-4-5-20250929",
  context_budget_percent: "20",
  max_budget_usd: "1",
  max_turns: "5",
};
const ALLOWED_TOOLS = "Read,Write,Edit,Bash(git *)";
/** Not a git command and not a file edit: outside the allowlist, under acceptEdits too. */
const REFUSED = `node -e "require('fs').writeFileSync('pwned.txt', 'x')"`;
/** Claude Code without `[1m]` in the model name is measured against a 200,000-token window. */
const WINDOW = 200_000;

type Run = Awaited<ReturnType<typeof runStage>> & { box: Sandbox; server: FakeModelServer; argv: string[][] };

async function runStageWith(contextBudget: number): Promise<Run> {
  const box = createSandbox();
  const stage = `
- id: build
  name: Build the greeter
  description: Write greet.txt saying hello
  model: ${MODEL}
  reasoning_effort: medium
  context_budget: ${contextBudget}
  max_budget_usd: 8
  max_turns: 25
`;
  await mkdir(path.join(box.repo, "doc/plans"), { recursive: true });
  await writeFile(path.join(box.repo, PLAN_PATH), planText(stage));
  box.git("add", PLAN_PATH);
  box.git("commit", "-q", "-m", "plan");
  // Each start of Claude Code appends its argument count, then its arguments, NUL-separated.
  const argvFile = path.join(box.dir, "argv");
  const wrapper = path.join(box.dir, "claude-wrapper.sh");
  await writeFile(
    wrapper,
    `#!/bin/sh\nprintf '%s\\0' "$#" "$@" >> '${argvFile}'\nexec '${CLAUDE_PATH}' "$@"\n`,
  );
  await chmod(wrapper, 0o755);
  const turns: FakeTurn[] = [
    {
      blocks: [{ type: "tool_use", name: "Bash", input: { command: REFUSED, description: "write a file" } }],
    },
    {
      blocks: [{ type: "tool_use", name: "Read", input: { file_path: path.join(box.repo, "README.md") } }],
      // 40 % of the window: past a 30 % budget, short of a 50 % one.
      usage: { input_tokens: 0.4 * WINDOW - 20, output_tokens: 20 },
    },
    // The request already in flight when the action stops the session may still be answered.
    {
      blocks: [{ type: "text", text: "Done." }],
      usage: { input_tokens: 0.4 * WINDOW - 20, output_tokens: 20 },
    },
  ];
  const server = await startFakeModelServer({ turns });
  const stageInputs = inputs({
    branch: "main",
    silence_timeout_minutes: "1",
    allowed_tools: ALLOWED_TOOLS,
    claude_path: wrapper,
    ...ACTION_DEFAULTS,
  });
  try {
    // loom's hooks are left out: they do not touch these settings, and their Stop gate only adds
    // turns (run-stage-claude.test.ts runs a stage with them).
    const run = await runStage(
      stageInputs,
      sandboxDeps(box, server.url, { uploadArtifact: () => Promise.resolve(), hooks: null }),
    );
    const recorded = existsSync(argvFile) ? await readFile(argvFile, "utf8") : "";
    return { ...run, box, server, argv: splitInvocations(recorded) };
  } finally {
    await server.close();
  }
}

/** The recorded invocations: each a count, then that many NUL-ended arguments. */
function splitInvocations(recorded: string): string[][] {
  const fields = recorded.split("\0");
  const invocations: string[][] = [];
  for (let at = 0; at < fields.length - 1;) {
    const count = Number(fields[at]);
    invocations.push(fields.slice(at + 1, at + 1 + count));
    at += 1 + count;
  }
  return invocations;
}

/** The value after `flag` in `argv`. */
function flagValue(argv: readonly string[], flag: string): string | undefined {
  const at = argv.indexOf(flag);
  return at === -1 ? undefined : argv[at + 1];
}

test(
  "with the real Claude Code: a stage's model, effort, caps and allowlist reach the session; a tool outside the allowlist is refused and nothing runs",
  { timeout: 110_000 },
  async (t) => {
    const run = await runStageWith(50);
    t.after(() => run.box.cleanup());
    const { result } = run;
    // The session did nothing but ask: loom says so, with the refusal.
    assert.equal(result.outcome, "completed-with-failures", result.reason);
    assert.match(result.reason, /1 tool use refused/);

    assert.equal(run.argv.length, 1, "Claude Code started once");
    const [argv = []] = run.argv;
    assert.deepEqual(
      ["--model", "--effort", "--max-budget-usd", "--max-turns", "--allowedTools", "--permission-mode"].map(
        (flag) => [flag, flagValue(argv, flag)],
      ),
      [
        ["--model", MODEL],
        ["--effort", "medium"],
        ["--max-budget-usd", "8"],
        ["--max-turns", "25"],
        ["--allowedTools", ALLOWED_TOOLS],
        ["--permission-mode", "acceptEdits"],
      ],
    );

    // What Claude Code asked the model with: the stage's model and effort, on every turn.
    const main = run.server.mainRequests();
    assert.ok(main.length >= 3, `${main.length} conversation requests`);
    assert.deepEqual(
      [...new Set(main.map((r) => `${r.body?.model} effort=${JSON.stringify(r.body?.["output_config"])}`))],
      [`${MODEL} effort={"effort":"medium"}`],
    );

    // At 40 % of the window the session went on: its budget is the stage's 50, not the action's 20.
    assert.equal(run.server.turnsUsed(), 3);

    // The refused command: named in the result, answered as refused, and it never ran.
    assert.equal(result.permission_denials.length, 1, JSON.stringify(result.permission_denials));
    assert.match(result.permission_denials[0] ?? "", /^Bash.*pwned\.txt/);
    const [refusal] = run.server.toolResults();
    assert.equal(refusal?.["is_error"], true);
    assert.equal(existsSync(path.join(run.box.repo, "pwned.txt")), false, "the refused command did not run");
  },
);

test(
  "with the real Claude Code: the session ends with a handoff once its context passes the stage's context_budget",
  { timeout: 110_000 },
  async (t) => {
    const run = await runStageWith(30);
    t.after(() => run.box.cleanup());
    const { result } = run;
    assert.equal(result.outcome, "needs-handoff", result.reason);
    // Stopped on the turn that passed 30 %: Claude Code may have sent its next request by then
    // (the Read runs in milliseconds), never one after it.
    const turns = run.server.turnsUsed();
    assert.ok(turns === 2 || turns === 3, `ended after the turn that passed 30 % (${turns} turns)`);
    assert.equal(Math.round(result.context_percent), 40);
    assert.match(result.handoff ?? "", /context/i);
    // Not the default 65 % nor the action's 20 %: the same script went on at 40 % with a budget of 50.
    assert.equal(flagValue(run.argv[0] ?? [], "--model"), MODEL);
  },
);
