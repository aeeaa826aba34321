import { createHmac, randomUUID } from "node:crypto";
import type { Faults } from "./create-faults.ts";

type Json = Record<string, unknown>;

/** One POST of a delivery: where it went and the answer (null status: no answer). */
export type DeliveryAttempt = { url: string; status: number | null; error?: string };

export type Delivery = {
  id: string;
  event: string;
  action: string | null;
  payload: Json;
  /** The exact bytes signed and sent. */
  body: string;
  signature: string;
  /** One per POST (a duplicated delivery has two); empty when dropped or when no app URL is set. */
  attempts: DeliveryAttempt[];
  dropped: boolean;
};

export type WebhookTarget = {
  url: string | null;
  secret: string;
  /**
   * Several app instances behind a load balancer (then `url` is not used): each delivery goes to
   * the next one in turn.
   */
  urls?: string[];
  /** With `urls`: every n-th delivery also goes to the following instance, same `X-GitHub-Delivery`. */
  duplicateEvery?: number;
};

export type WebhookSender = {
  /** Queues a delivery; they are POSTed one at a time, in order (unless a fault reorders them). */
  send(event: string, payload: Json): Delivery;
  /** Resolves once every queued delivery was sent (held reordered ones included). */
  settle(): Promise<void>;
  deliveries: Delivery[];
  target: WebhookTarget;
};

export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** Sends signed webhooks like GitHub's hookshot: `X-GitHub-Event`, `X-GitHub-Delivery`, `X-Hub-Signature-256`. */
export function createWebhookSender(
  target: WebhookTarget,
  faults: Faults,
  onDelivery?: (d: Delivery) => void,
): WebhookSender {
  const deliveries: Delivery[] = [];
  let chain: Promise<void> = Promise.resolve();
  let held: Delivery[] = [];

  let sent = 0;

  /** Where one delivery goes: the target, or the next instance (and, now and then, the one after). */
  function destinations(): string[] {
    const urls = target.urls ?? [];
    if (urls.length === 0) return target.url === null ? [] : [target.url];
    const turn = sent++;
    const first = urls[turn % urls.length]!;
    const every = target.duplicateEvery ?? 0;
    if (urls.length < 2 || every <= 0 || (turn + 1) % every !== 0) return [first];
    return [first, urls[(turn + 1) % urls.length]!];
  }

  async function post(delivery: Delivery): Promise<void> {
    onDelivery?.(delivery);
    for (const url of destinations()) await postTo(delivery, url);
  }

  async function postTo(delivery: Delivery, url: string): Promise<void> {
    const installation = (delivery.payload["installation"] as { id?: number } | undefined)?.id;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "GitHub-Hookshot/emulator",
          "x-github-event": delivery.event,
          "x-github-delivery": delivery.id,
          "x-github-hook-id": "1",
          "x-github-hook-installation-target-type": "integration",
          "x-github-hook-installation-target-id": String(installation ?? 0),
          "x-hub-signature-256": delivery.signature,
        },
        body: delivery.body,
        signal: AbortSignal.timeout(30_000),
      });
      await response.arrayBuffer();
      delivery.attempts.push({ url, status: response.status });
    } catch (error) {
      delivery.attempts.push({ url, status: null, error: (error as Error).message });
    }
  }

  async function deliver(delivery: Delivery, effect: string | null): Promise<void> {
    if (effect === "drop") {
      delivery.dropped = true;
      return;
    }
    if (effect === "reorder") {
      held.push(delivery);
      return;
    }
    await post(delivery);
    if (effect === "duplicate") await post(delivery);
    const release = held;
    held = [];
    for (const late of release) await post(late);
  }

  return {
    deliveries,
    target,
    send(event, payload) {
      const body = JSON.stringify(payload);
      const action = typeof payload["action"] === "string" ? payload["action"] : null;
      const delivery: Delivery = {
        id: randomUUID(),
        event,
        action,
        payload,
        body,
        signature: signBody(target.secret, body),
        attempts: [],
        dropped: false,
      };
      deliveries.push(delivery);
      const effect = faults.takeWebhook(event, action);
      chain = chain.then(() => deliver(delivery, effect));
      return delivery;
    },
    async settle() {
      // Deliveries may queue more work (the app answers by calling the API): wait until quiet.
      for (let round = 0; round < 100; round++) {
        const current = chain;
        await current;
        if (current === chain) break;
      }
      const release = held;
      held = [];
      for (const late of release) await post(late);
    },
  };
}
