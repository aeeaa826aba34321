import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createIdleApp } from "../e2e/app-process.ts";

const SECRET = "refused-webhook-secret";
/** In every payload sent: no log line may carry it. */
const MARKER = "PAYLOAD-MARKER-7f3a";

function sign(body: string): string {
  return `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
}

/**
 * The real App (`node app/main.ts`, JSON logs as in production) sent refused webhooks one at a time.
 * After each answer a `GET /ping?after=<delivery>` follows; once its access line is read, every line
 * the refused webhook caused has been read too (one process writes its log in order).
 */
describe("a refused webhook is one warn line, without its payload", { timeout: 60_000 }, () => {
  const { app } = createIdleApp(after, { name: "refused", webhookSecret: SECRET, pollMs: 60_000 });
  let sent = 0;

  before(async () => {
    await app.start();
    await settle("start");
  });

  /** Where the lines of the next request start: after the access line of `GET /ping?after=<tag>`. */
  let from = 0;
  async function settle(tag: string): Promise<number> {
    const sentinel = `/ping?after=${tag}`;
    await (await fetch(new URL(sentinel, app.webhookUrl))).text();
    const find = () =>
      app.logs.findIndex(
        (line, index) => index >= from && (line["req"] as { url?: unknown } | undefined)?.url === sentinel,
      );
    // Bounded: 100 × 50 ms.
    for (let attempt = 0; attempt < 100 && find() < 0; attempt++) await sleep(50);
    const end = find();
    assert.ok(end >= 0, `no access line for ${sentinel}`);
    from = end + 1;
    return end;
  }

  /** Posts `body` with `signature` (none: no header); the answer and the lines logged for it. */
  async function post(body: string, signature: string | null, path = "/api/github/webhooks") {
    sent += 1;
    const delivery = `refused-${sent}`;
    const start = from;
    const response = await fetch(new URL(path, app.webhookUrl), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "issue_comment",
        "x-github-delivery": delivery,
        ...(signature === null ? {} : { "x-hub-signature-256": signature }),
      },
      body,
    });
    const answer = { status: response.status, body: await response.text() };
    const lines = app.logs.slice(start, await settle(delivery));
    return { answer, delivery, lines, loud: lines.filter((line) => Number(line["level"]) >= 40) };
  }

  const payload = JSON.stringify({ action: "created", comment: { body: `/loom retry a ${MARKER}` } });

  for (const { name, send, status, error, message } of [
    {
      name: "a forged signature",
      send: () => post(payload, `sha256=${"0".repeat(64)}`),
      status: 400,
      error: "Error: [@octokit/webhooks] signature does not match event payload and secret",
      message: "webhook refused: signature does not match",
    },
    {
      name: "a forged signature posted to / (the URL the setup page registers)",
      send: () => post(payload, sign(payload.replace("created", "deleted")), "/"),
      status: 400,
      error: "Error: [@octokit/webhooks] signature does not match event payload and secret",
      message: "webhook refused: signature does not match",
    },
    {
      name: "no signature",
      send: () => post(payload, null),
      status: 400,
      error: "Required headers missing: x-hub-signature-256",
      message: "webhook refused: no signature",
    },
    {
      name: "a signed body that is not JSON",
      send: () => post(`{"comment": "${MARKER}"`, sign(`{"comment": "${MARKER}"`)),
      status: 400,
      error: "SyntaxError: Invalid JSON",
      message: "webhook refused: invalid JSON",
    },
  ]) {
    it(`${name}: GitHub gets ${status}, the log one warn line with the event and delivery`, async () => {
      const { answer, delivery, lines } = await send();
      assert.deepEqual(answer, { status, body: JSON.stringify({ error }) });
      assert.deepEqual(
        lines.map((line) => ({
          level: line["level"],
          msg: line["msg"],
          event: line["event"],
          delivery: line["delivery"],
        })),
        [{ level: 40, msg: message, event: "issue_comment", delivery }],
        `exactly one line:\n${lines.map((line) => JSON.stringify(line).slice(0, 300)).join("\n")}`,
      );
      for (const line of lines) assert.doesNotMatch(JSON.stringify(line), new RegExp(MARKER));
    });
  }

  it("a signed webhook still goes through (its body read once, by the guard)", async () => {
    const { answer, loud } = await post(payload, sign(payload));
    assert.deepEqual(answer, { status: 200, body: "ok\n" });
    assert.deepEqual(loud, []);
  });
});
