import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  computeContextPercent,
  EMPTY_OBSERVATION,
  observeStream,
  sumTokens,
  type StreamObservation,
} from "../../action/src/session/observe-stream.ts";
import { decideOutcome } from "../../action/src/session/session-outcome.ts";
import { parseStreamLine } from "../../action/src/session/stream-message.ts";
import { findDeviations } from "../../action/src/session/find-deviations.ts";

/** Recorded from Claude Code 2.1.197 against the scripted server: Write, a refused Bash, one Stop-hook block. */
const RECORDED = readFileSync(new URL("recorded-stream.jsonl", import.meta.url), "utf8")
  .split("\n")
  .filter(Boolean);

function observeAll(lines: readonly string[]): StreamObservation {
  return lines.map(parseStreamLine).reduce(observeStream, EMPTY_OBSERVATION);
}

describe("reading Claude Code's stream-json", () => {
  it("reads every recorded line, passing hook events, tool results and notifications through as other", () => {
    const types = RECORDED.map((line) => parseStreamLine(line).type);
    assert.equal(types.filter((t) => t === "invalid").length, 0);
    assert.deepEqual(types.slice(0, 4), ["other", "other", "init", "assistant"]);
    assert.equal(types.at(-1), "result");
  });

  it("counts turns per assistant message, not per content-block line, and keeps the session id", () => {
    const o = observeAll(RECORDED);
    assert.equal(o.turns, 4);
    assert.equal(o.sessionId, "533874f0-56c8-4c26-931b-47076aa7ac90");
    assert.equal(o.model, "claude-opus-4-8[1m]");
  });

  it("follows tool uses: last tool, activity line, files written", () => {
    const o = observeAll(RECORDED.slice(0, 8));
    assert.equal(o.toolUses, 2);
    assert.equal(o.lastTool, "Bash");
    assert.equal(o.activity, "Bash curl -s http://127.0.0.1:9/");
    assert.equal(o.filesTouched.length, 1);
    assert.match(o.filesTouched[0] ?? "", /\/repo\/hello\.txt$/);
  });

  it("computes context percent from the newest message's input, cache and output tokens", () => {
    const afterFirst = observeAll(RECORDED.slice(0, 4));
    assert.equal(afterFirst.contextTokens, 12_000 + 30_000 + 1);
    // init says the model is a [1m] variant: a 1,000,000-token window until the result says otherwise.
    assert.equal(computeContextPercent(afterFirst, undefined), (42_001 / 1_000_000) * 100);
    assert.equal(computeContextPercent(afterFirst, 100_000), 42.001);
  });

  it("takes tokens, cost, window, denials and deviations from the result", () => {
    const o = observeAll(RECORDED);
    assert.equal(o.contextWindow, 1_000_000);
    assert.deepEqual(sumTokens(o), { input: 39_100, output: 110, cache_read: 90_000, cache_creation: 0 });
    assert.ok((o.result?.total_cost_usd ?? 0) > 0);
    assert.deepEqual(
      o.result?.permission_denials.map((d) => d.tool_name),
      ["Bash"],
    );
    assert.deepEqual(o.deviations, [
      "[DEVIATION Rule 1: kept the old name]",
      "[DEVIATION Rule 3: skipped a test]",
    ]);
  });

  it("tolerates garbage, unknown message types and unknown fields", () => {
    assert.equal(parseStreamLine("not json").type, "invalid");
    assert.equal(parseStreamLine("[1,2]").type, "invalid");
    assert.equal(parseStreamLine('{"type":"stream_event","event":{}}').type, "other");
    const odd = parseStreamLine(
      '{"type":"assistant","brand_new":1,"message":{"id":"m","content":[{"type":"thinking","thinking":"hm"}],"usage":{"input_tokens":5,"output_tokens":1}}}',
    );
    assert.equal(odd.type, "assistant");
    const o = observeStream(EMPTY_OBSERVATION, odd);
    assert.equal(o.turns, 1);
    assert.equal(observeStream(o, parseStreamLine("{")).invalidLines, 1);
  });

  it("does not count sub-agent messages as turns or context", () => {
    const sub = parseStreamLine(
      '{"type":"assistant","parent_tool_use_id":"toolu_1","message":{"id":"s","content":[],"usage":{"input_tokens":900000,"output_tokens":1}}}',
    );
    const o = observeStream(EMPTY_OBSERVATION, sub);
    assert.equal(o.turns, 0);
    assert.equal(o.contextTokens, 0);
  });
});

describe("deciding how a session ended", () => {
  const ended = { kind: "stream-ended" } as const;
  const exit0 = { code: 0, signal: null };
  const withResult = (fields: string): StreamObservation =>
    observeStream(EMPTY_OBSERVATION, parseStreamLine(`{"type":"result",${fields}}`));

  const cases: { name: string; o: StreamObservation; status: string }[] = [
    {
      name: "success is completed",
      o: withResult('"subtype":"success","is_error":false'),
      status: "completed",
    },
    {
      name: "success with is_error is a crash",
      o: withResult('"subtype":"success","is_error":true,"result":"API Error: 500"'),
      status: "crashed",
    },
    {
      name: "the spending cap",
      o: withResult('"subtype":"error_max_budget_usd","is_error":true'),
      status: "budget-exceeded",
    },
    {
      name: "the turn limit",
      o: withResult('"subtype":"error_max_turns","is_error":true'),
      status: "max-turns",
    },
    {
      name: "an error during execution",
      o: withResult('"subtype":"error_during_execution","is_error":true'),
      status: "crashed",
    },
    { name: "exit 0 without a result is a crash, not a success", o: EMPTY_OBSERVATION, status: "crashed" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(decideOutcome(ended, c.o, exit0, "").status, c.status);
    });
  }

  it("loom's own stops win over what the stream says", () => {
    assert.equal(
      decideOutcome({ kind: "silence", silentForMs: 600_000 }, EMPTY_OBSERVATION, exit0, "").status,
      "hung",
    );
    assert.equal(
      decideOutcome({ kind: "context-budget", percent: 70 }, EMPTY_OBSERVATION, exit0, "").status,
      "needs-handoff",
    );
  });

  it("says why a session crashed, with the end of stderr", () => {
    const d = decideOutcome(
      ended,
      EMPTY_OBSERVATION,
      { code: 1, signal: null },
      "warming up\nError: invalid API key\n",
    );
    assert.match(d.reason, /exit code 1.*invalid API key/);
  });
});

describe("finding deviation markers", () => {
  it("finds each marker once, in order, and ignores look-alikes", () => {
    const text =
      "[DEVIATION Rule 2: a] text [DEVIATION Rule 2: a] [DEVIATION Rule x: no] [DEVIATION Rule 10: b]";
    assert.deepEqual(findDeviations(text), ["[DEVIATION Rule 2: a]", "[DEVIATION Rule 10: b]"]);
  });
});
