import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFakeModelServer, type FakeModelServer } from "../support/fake-model-server.ts";

const TOOLS = [{ name: "Write", input_schema: { type: "object" } }];
let server: FakeModelServer;

type SseEvent = {
  type: string;
  message?: { usage: { input_tokens: number } };
  delta?: { type?: string; partial_json?: string; stop_reason?: string };
};
type JsonMessage = { content: { type: string; text?: string }[]; stop_reason: string };

before(async () => {
  server = await startFakeModelServer({
    turns: [
      {
        blocks: [{ type: "tool_use", name: "Write", input: { file_path: "/w/a.txt", content: "a" } }],
        usage: { input_tokens: 1234 },
      },
      { blocks: [{ type: "text", text: "late" }], stall: { delayMs: 50 } },
    ],
  });
});
after(() => server.close());

function post(path: string, body: object): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("the scripted Messages-API server", () => {
  it("answers HEAD / and count_tokens", async () => {
    assert.equal((await fetch(server.url, { method: "HEAD" })).status, 200);
    const counted = (await (await post("/v1/messages/count_tokens", { messages: [] })).json()) as {
      input_tokens: number;
    };
    assert.ok(counted.input_tokens > 0);
  });

  it("streams a scripted tool_use turn as Anthropic SSE events that reassemble to the scripted input", async () => {
    const res = await post("/v1/messages?beta=true", {
      model: "m",
      stream: true,
      tools: TOOLS,
      messages: [],
    });
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const events = (await res.text())
      .split("\n\n")
      .filter(Boolean)
      .map((chunk) => JSON.parse(chunk.split("\n")[1]?.slice("data: ".length) ?? "") as SseEvent);
    assert.deepEqual(
      [...new Set(events.map((e) => e.type))],
      [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
      ],
    );
    assert.equal(events[0]?.message?.usage.input_tokens, 1234);
    const json = events
      .filter((e) => e.delta?.type === "input_json_delta")
      .map((e) => e.delta?.partial_json)
      .join("");
    assert.deepEqual(JSON.parse(json), { file_path: "/w/a.txt", content: "a" });
    assert.equal(events.find((e) => e.type === "message_delta")?.delta?.stop_reason, "tool_use");
  });

  it("answers non-streaming requests with one JSON message, after the scripted delay", async () => {
    const body = (await (
      await post("/v1/messages", { model: "m", stream: false, tools: TOOLS, messages: [] })
    ).json()) as JsonMessage;
    assert.deepEqual(body.content, [{ type: "text", text: "late" }]);
    assert.equal(body.stop_reason, "end_turn");
  });

  it("gives side requests a short text without using a turn, and records every request", async () => {
    const res = await post("/v1/messages", {
      model: "small",
      stream: false,
      messages: [{ role: "user", content: "title?" }],
    });
    assert.equal(((await res.json()) as JsonMessage).content[0]?.type, "text");
    assert.equal(server.turnsUsed(), 2);
    assert.deepEqual(
      server.requests.map((r) => r.kind),
      ["other", "count_tokens", "main", "main", "side"],
    );
  });
});
