import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { Heartbeat } from "../../src/artifacts/heartbeat.ts";

const HOOKS = resolve(import.meta.dirname, "../../hooks");
let dir = "";

type Ran = { code: number | null; stdout: string; stderr: string };

/** Runs a hook program as Claude Code does: JSON on stdin, environment inherited. */
function runHook(name: string, stdin: string, env: Record<string, string> = {}): Ran {
  const r = spawnSync(process.execPath, [join(HOOKS, `${name}.ts`)], {
    input: stdin,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", ...env },
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function makeRepo(name: string): string {
  const repo = join(dir, name);
  mkdirSync(repo);
  execFileSync("git", ["init", "-q", repo]);
  return repo;
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), "loom-hooks-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe("hook programs fail open", () => {
  for (const name of ["post-tool-use", "pre-compact", "stop", "session-start"]) {
    for (const [what, stdin] of [
      ["garbage", "{not json"],
      ["the wrong event", '{"session_id":"s","hook_event_name":"Nope"}'],
    ] as const) {
      it(`${name} given ${what} on stdin exits 0 and says why on stderr`, () => {
        const r = runHook(name, stdin, {
          LOOM_STATE_DIR: join(dir, "failopen"),
          LOOM_HEARTBEAT_FILE: join(dir, "failopen", "hb.json"),
        });
        assert.equal(r.code, 0);
        assert.match(r.stderr, /^loom \w+ hook: /);
        assert.equal(r.stdout, "");
      });
    }
  }
});

describe("PostToolUse", () => {
  it("replaces the heartbeat file with the tool just used, keeping turns and cost from the previous one", () => {
    const file = join(dir, "post", "heartbeat.json");
    const env = { LOOM_HEARTBEAT_FILE: file, LOOM_STAGE_ID: "build-api", LOOM_ATTEMPT: "2" };
    const input = (tool: string, toolInput: object): string =>
      JSON.stringify({
        session_id: "s1",
        hook_event_name: "PostToolUse",
        tool_name: tool,
        tool_input: toolInput,
        tool_response: {},
      });
    assert.equal(
      runHook("post-tool-use", input("Write", { file_path: "/w/src/a.ts", content: "x" }), env).code,
      0,
    );
    const first = Heartbeat.parse(JSON.parse(readFileSync(file, "utf8")));
    assert.deepEqual(
      [first.stage_id, first.attempt, first.last_tool, first.activity],
      ["build-api", 2, "Write", "Write /w/src/a.ts"],
    );
    writeFileSync(file, JSON.stringify({ ...first, turns: 7, cost_usd: 0.5, context_percent: 12 }));
    runHook("post-tool-use", input("Bash", { command: "npm test" }), env);
    const second = Heartbeat.parse(JSON.parse(readFileSync(file, "utf8")));
    assert.deepEqual(
      [second.last_tool, second.activity, second.turns, second.cost_usd, second.context_percent],
      ["Bash", "Bash npm test", 7, 0.5, 12],
    );
  });
});

describe("PreCompact", () => {
  it("writes handoff notes from the transcript and blocks the first compaction only", () => {
    const state = join(dir, "pc-state");
    const notes = join(dir, "pc", "handoff.md");
    const transcript = join(dir, "pc-transcript.jsonl");
    const toolUse = (name: string, input: object): string =>
      JSON.stringify({
        type: "assistant",
        message: { content: [{ type: "tool_use", id: "t", name, input }] },
      });
    writeFileSync(
      transcript,
      [toolUse("Write", { file_path: "/w/a.ts" }), "torn{", toolUse("Bash", { command: "npm test" })].join(
        "\n",
      ),
    );
    const stdin = JSON.stringify({
      session_id: "s",
      hook_event_name: "PreCompact",
      trigger: "auto",
      transcript_path: transcript,
    });
    const env = { LOOM_STATE_DIR: state, LOOM_HANDOFF_FILE: notes };
    const first = runHook("pre-compact", stdin, env);
    assert.equal(first.code, 2);
    assert.match(first.stderr, /commit the work/);
    const text = readFileSync(notes, "utf8");
    assert.match(text, /Compaction \(auto\)/);
    assert.match(text, /- \/w\/a\.ts/);
    assert.match(text, /- Bash npm test/);
    assert.equal(runHook("pre-compact", stdin, env).code, 0);
  });
});

describe("Stop", () => {
  const stdin = (cwd: string): string =>
    JSON.stringify({ session_id: "s", hook_event_name: "Stop", stop_hook_active: false, cwd });

  it("lets a session with everything committed stop", () => {
    const repo = makeRepo("clean");
    const r = runHook("stop", stdin(repo), { LOOM_STATE_DIR: join(dir, "stop-clean") });
    assert.equal(r.code, 0);
  });

  it("blocks while work is uncommitted, at most LOOM_STOP_MAX_BLOCKS times", () => {
    const repo = makeRepo("dirty");
    writeFileSync(join(repo, "new.txt"), "x");
    const env = { LOOM_STATE_DIR: join(dir, "stop-dirty"), LOOM_STOP_MAX_BLOCKS: "3" };
    const codes = Array.from({ length: 5 }, () => runHook("stop", stdin(repo), env));
    assert.deepEqual(
      codes.map((r) => r.code),
      [2, 2, 2, 0, 0],
    );
    assert.match(codes[0]?.stderr ?? "", /Commit your work[\s\S]*new\.txt/);
  });

  it("asks for learnings when a learnings file is expected and missing", () => {
    const repo = makeRepo("learn");
    const learnings = join(dir, "learnings.jsonl");
    const r = runHook("stop", stdin(repo), {
      LOOM_STATE_DIR: join(dir, "stop-learn"),
      LOOM_LEARNINGS_FILE: learnings,
    });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /Record what you learned/);
    writeFileSync(learnings, '{"category":"pattern"}\n');
    assert.equal(
      runHook("stop", stdin(repo), {
        LOOM_STATE_DIR: join(dir, "stop-learn"),
        LOOM_LEARNINGS_FILE: learnings,
      }).code,
      0,
    );
  });

  it("asks for learnings once: a session with nothing to record may then stop", () => {
    const repo = makeRepo("learn-once");
    const env = {
      LOOM_STATE_DIR: join(dir, "stop-learn-once"),
      LOOM_LEARNINGS_FILE: join(dir, "never-written.jsonl"),
    };
    const first = runHook("stop", stdin(repo), env);
    assert.equal(first.code, 2);
    assert.match(first.stderr, /Record what you learned in .*never-written\.jsonl.*criteria_met/);
    assert.equal(runHook("stop", stdin(repo), env).code, 0);
  });

  it("without a state directory blocks only when Claude Code is not already continuing from a block", () => {
    const repo = makeRepo("nostate");
    writeFileSync(join(repo, "new.txt"), "x");
    assert.equal(runHook("stop", stdin(repo)).code, 2);
    const active = JSON.stringify({
      session_id: "s",
      hook_event_name: "Stop",
      stop_hook_active: true,
      cwd: repo,
    });
    assert.equal(runHook("stop", active).code, 0);
  });
});

describe("SessionStart", () => {
  it("re-anchors after compaction with the stage, the assignment and the handoff notes", () => {
    const assignment = join(dir, "assignment.md");
    const notes = join(dir, "notes.md");
    writeFileSync(assignment, "# Stage build-api\nImplement the API.\n");
    writeFileSync(notes, "Files written: src/api.ts\n");
    const env = {
      LOOM_STAGE_ID: "build-api",
      LOOM_ATTEMPT: "1",
      LOOM_ASSIGNMENT_FILE: assignment,
      LOOM_HANDOFF_FILE: notes,
    };
    const r = runHook(
      "session-start",
      JSON.stringify({ session_id: "s", hook_event_name: "SessionStart", source: "compact" }),
      env,
    );
    assert.equal(r.code, 0);
    const out = JSON.parse(r.stdout) as {
      hookSpecificOutput: { hookEventName: string; additionalContext: string };
    };
    assert.equal(out.hookSpecificOutput.hookEventName, "SessionStart");
    assert.match(out.hookSpecificOutput.additionalContext, /stage `build-api`/);
    assert.match(out.hookSpecificOutput.additionalContext, /Implement the API\./);
    assert.match(out.hookSpecificOutput.additionalContext, /src\/api\.ts/);
  });

  it("adds nothing on a fresh start", () => {
    const r = runHook(
      "session-start",
      JSON.stringify({ session_id: "s", hook_event_name: "SessionStart", source: "startup" }),
      {},
    );
    assert.equal(r.code, 0);
    assert.equal(r.stdout, "");
  });
});
