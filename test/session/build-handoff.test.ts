import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { describe, it } from "node:test";
import { Handoff, renderHandoffMarkdown } from "../../src/artifacts/handoff.ts";
import { buildHandoff } from "../../action/src/session/build-handoff.ts";
import { buildHookSettings, quoteShellWord } from "../../action/src/session/hook-settings.ts";
import { EMPTY_OBSERVATION, observeStream } from "../../action/src/session/observe-stream.ts";
import { parseStreamLine } from "../../action/src/session/stream-message.ts";

const toolLine = (name: string, input: object, text = ""): string =>
  JSON.stringify({
    type: "assistant",
    message: {
      id: `m-${name}`,
      content: [
        { type: "text", text },
        { type: "tool_use", id: `t-${name}`, name, input },
      ],
    },
  });

describe("the handoff document", () => {
  const observation = [
    toolLine("Write", { file_path: "/work/repo/src/a.ts", content: "x" }),
    toolLine("Read", { file_path: "/work/repo/README.md" }),
    toolLine("Edit", { file_path: "/elsewhere/b.ts" }, "Half way: the parser is done, the CLI is not."),
  ]
    .map(parseStreamLine)
    .reduce(observeStream, EMPTY_OBSERVATION);

  const handoff = buildHandoff({
    observation,
    reason: "context-budget",
    stageId: "parser",
    attempt: 2,
    createdAt: "2026-11-22T00:00:00.000Z",
    contextPercent: 66.5,
    hookNotes: "Compaction (auto) requested.",
    lastHeartbeat: null,
    cwd: "/work/repo",
  });

  it("lists written files relative to the working directory, reads excluded, and validates", () => {
    assert.deepEqual(Handoff.parse(handoff).files_touched, ["src/a.ts", "/elsewhere/b.ts"]);
    assert.deepEqual(handoff.recent_activity, ["Write src/a.ts", "Read README.md", "Edit /elsewhere/b.ts"]);
    assert.match(handoff.summary, /3 turns, 3 tool uses; last: Edit \/elsewhere\/b\.ts/);
    assert.match(handoff.summary, /the parser is done, the CLI is not/);
  });

  it("renders as markdown with every section a recovery session needs", () => {
    const md = renderHandoffMarkdown(handoff);
    assert.match(md, /^# Handoff: stage `parser`, attempt 2\n/);
    assert.match(md, /crossed its context budget \(context 66\.5 %\)/);
    for (const heading of [
      "What was done",
      "What remains",
      "Files touched",
      "Recent activity",
      "Notes written before compaction",
      "Last heartbeat",
    ]) {
      assert.match(md, new RegExp(`## ${heading}\\n`));
    }
  });
});

describe("the hook settings", () => {
  it("quote paths so a shell runs exactly the hook program, even with spaces and quotes in it", () => {
    const odd = "/tmp/it's a dir/x";
    assert.equal(execFileSync("sh", ["-c", `printf %s ${quoteShellWord(odd)}`], { encoding: "utf8" }), odd);
    const settings = buildHookSettings({
      dir: "/opt/loom hooks",
      extension: "js",
      nodePath: "/usr/bin/node",
    });
    assert.equal(settings.hooks.Stop[0]?.hooks[0]?.command, "'/usr/bin/node' '/opt/loom hooks/stop.js'");
    assert.deepEqual(Object.keys(settings.hooks), ["PostToolUse", "PreCompact", "Stop", "SessionStart"]);
  });
});
