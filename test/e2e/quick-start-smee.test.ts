import assert from "node:assert/strict";
import { writeFile, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { Emulator } from "../emulator/start-emulator.ts";
import {
  freePort,
  freshCheckout,
  npmStart,
  startQuickStartGitHub,
  stop,
  waitFor,
  waitForCheckRuns,
  type NpmStart,
} from "./npm-start.ts";
import { DIAMOND_PLAN } from "./sample-plans.ts";

/**
 * README quick start, "trying it out on your machine": GitHub cannot reach localhost, so webhooks go
 * through a smee.io channel (`WEBHOOK_PROXY_URL` in `.env`). The setup page registers the channel as
 * the App's webhook URL, and the working App forwards what arrives there to itself with the
 * `smee-client` that ships with loom (Probot would otherwise try to download it at run time).
 * smee.io is played on loopback: a channel takes GitHub's POSTs and streams each to its listeners as
 * a server-sent event `{ <headers>, body, query, timestamp }`, as smee.io does.
 */
type Channel = { url: string; listeners: () => number; relayed: () => number; close: () => Promise<void> };

async function startChannel(): Promise<Channel> {
  const clients = new Set<ServerResponse>();
  let relayed = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "GET" && req.url === "/channel") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(": connected\n\n");
      clients.add(res);
      req.on("close", () => clients.delete(res));
      return;
    }
    if (req.method === "POST" && req.url === "/channel") {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(
            ([name]) => name.startsWith("x-github-") || name.startsWith("x-hub-"),
          ),
        );
        const event = {
          ...headers,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown,
          query: {},
          timestamp: Date.now(),
        };
        for (const client of clients) client.write(`data: ${JSON.stringify(event)}\n\n`);
        relayed += 1;
        res.writeHead(200).end();
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/channel`,
    listeners: () => clients.size,
    relayed: () => relayed,
    close: async () => {
      for (const client of clients) client.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("README quick start, trying loom out through a smee.io channel", { timeout: 120_000 }, () => {
  let emulator: Emulator;
  let channel: Channel;
  let checkout: string;
  let run: NpmStart | null = null;
  let port = 0;

  before(async () => {
    // The caller a newcomer copies from README (test/workflows/readme-caller.test.ts: examples/loom.yml).
    emulator = await startQuickStartGitHub();
    channel = await startChannel();
    checkout = await freshCheckout();
    const github = new URL(emulator.url);
    port = await freePort();
    await writeFile(
      path.join(checkout, ".env"),
      [
        `WEBHOOK_PROXY_URL=${channel.url}`,
        `GHE_HOST=${github.host}`,
        "GHE_PROTOCOL=http",
        "HOST=127.0.0.1",
        `PORT=${port}`,
        "",
      ].join("\n"),
    );
  });

  after(async () => {
    if (run) await stop(run);
    await channel?.close();
    await emulator?.close();
    if (checkout) await rm(checkout, { recursive: true, force: true });
  });

  it("registers the channel as the webhook URL and receives the plan's webhook through it", async () => {
    run = npmStart(checkout);
    const base = `http://127.0.0.1:${port}`;
    const page = await (await waitFor(`${base}/probot`, (status) => status === 200, run)).text();
    const manifestText = /name="manifest" id="manifest" value='([^']*)'/.exec(page)?.[1];
    assert.ok(manifestText);
    assert.equal(
      (JSON.parse(manifestText) as { hook_attributes: { url: string } }).hook_attributes.url,
      channel.url,
    );

    const { redirectUrl } = emulator.registerApp(manifestText);
    assert.equal((await fetch(redirectUrl, { redirect: "manual" })).status, 302);
    await waitFor(`${base}/healthz`, (status) => status === 200, run);
    // Bounded (100 × 100 ms): the working App's smee-client connects to the channel.
    for (let attempt = 0; attempt < 100 && channel.listeners() === 0; attempt++) await sleep(100);
    assert.equal(channel.listeners(), 1, `the App listens on the channel:\n${run.output()}`);

    const pull = await emulator.as("alice").openPullRequest({
      head: "plan-diamond",
      files: { [DIAMOND_PLAN.path]: DIAMOND_PLAN.text },
    });
    await waitForCheckRuns(emulator, pull, ["loom: PLAN-diamond", "loom: a"], run);
    assert.ok(channel.relayed() > 0, "the webhook went through the channel");
    assert.doesNotMatch(run.output(), /npm install --save-dev smee-client|npx/, "nothing was downloaded");
    emulator.assertNoViolations();
  });
});
