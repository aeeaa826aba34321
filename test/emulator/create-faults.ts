/**
 * Scripted faults. A route fault matches a method (optional) and a path: a string is compared with
 * GitHub's path template (`/repos/{owner}/{repo}/merges`) or the concrete path, a RegExp with the
 * concrete path. Each fault fires `times` times (default 1; `Infinity` for always), oldest first.
 */

export type RouteFaultEffect =
  /** Answer this status with GitHub's error body instead of doing the request. */
  | { type: "status"; status: number; message?: string; headers?: Record<string, string> }
  /** A primary rate limit (`x-ratelimit-remaining: 0` + reset) or, with `retryAfter`, a secondary one. */
  | { type: "rate-limit"; status: 403 | 429; retryAfter?: number; resetInSeconds?: number }
  /** Wait before doing the request for real. */
  | { type: "latency"; ms: number }
  /**
   * The connection dies: `before` the request is done (GitHub never acted on it) or `after` it was
   * done (GitHub acted; the caller never learns). `onFire` runs first and is awaited, e.g. to
   * SIGKILL the app that sent the request (a kill point); then the socket is destroyed unanswered.
   */
  | { type: "disconnect"; when: "before" | "after"; onFire?: () => void | Promise<void> };

export type RouteFault = { method?: string; path: string | RegExp; times?: number } & RouteFaultEffect;

export type WebhookFaultEffect = "drop" | "duplicate" | "reorder";

/** `reorder` holds the delivery back and sends it after the next one. */
export type WebhookFault = { event: string; action?: string; effect: WebhookFaultEffect; times?: number };

export type FiredFault =
  | { kind: "route"; method: string; path: string; effect: string }
  | { kind: "webhook"; event: string; action: string | null; effect: WebhookFaultEffect };

export type Faults = {
  route(fault: RouteFault): void;
  webhook(fault: WebhookFault): void;
  /** Forget every fault not yet fired. */
  clear(): void;
  /** Every fault that fired, in order. */
  fired: FiredFault[];
  /** The next route fault for a request (consumes one of its `times`). */
  takeRoute(method: string, path: string, template: string | null): RouteFaultEffect | null;
  takeWebhook(event: string, action: string | null): WebhookFaultEffect | null;
};

type Counted<T> = { fault: T; left: number };

function matchesPath(pattern: string | RegExp, path: string, template: string | null): boolean {
  if (pattern instanceof RegExp) return pattern.test(path);
  return pattern === template || pattern === path;
}

export function createFaults(): Faults {
  let routes: Counted<RouteFault>[] = [];
  let webhooks: Counted<WebhookFault>[] = [];
  const fired: FiredFault[] = [];
  return {
    fired,
    route: (fault) => void routes.push({ fault, left: fault.times ?? 1 }),
    webhook: (fault) => void webhooks.push({ fault, left: fault.times ?? 1 }),
    clear: () => {
      routes = [];
      webhooks = [];
    },
    takeRoute(method, path, template) {
      const found = routes.find(
        ({ fault, left }) =>
          left > 0 &&
          (fault.method === undefined || fault.method.toUpperCase() === method.toUpperCase()) &&
          matchesPath(fault.path, path, template),
      );
      if (!found) return null;
      found.left -= 1;
      const { method: _m, path: _p, times: _t, ...effect } = found.fault;
      fired.push({ kind: "route", method, path, effect: effect.type });
      return effect;
    },
    takeWebhook(event, action) {
      const found = webhooks.find(
        ({ fault, left }) =>
          left > 0 && fault.event === event && (fault.action === undefined || fault.action === action),
      );
      if (!found) return null;
      found.left -= 1;
      fired.push({ kind: "webhook", event, action, effect: found.fault.effect });
      return found.fault.effect;
    },
  };
}
