import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export type Received = {
  event: string;
  delivery: string;
  signature: string;
  body: string;
  payload: Record<string, unknown>;
};

/** A local HTTP endpoint that records the webhooks POSTed to it (for tests of the emulator's sender). */
export async function startWebhookReceiver(): Promise<{
  url: string;
  received: Received[];
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const header = (req: IncomingMessage, name: string): string => String(req.headers[name] ?? "");
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({
        event: header(req, "x-github-event"),
        delivery: header(req, "x-github-delivery"),
        signature: header(req, "x-hub-signature-256"),
        body,
        payload: JSON.parse(body) as Record<string, unknown>,
      });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
