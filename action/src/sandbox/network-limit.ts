import type { EgressDenial } from "../../../src/artifacts/egress-denial.ts";

/** What the session needs to be held to: the domains, loopback, direct endpoints by address. */
export type NetworkLimitRequest = {
  allow: readonly string[];
  /** Let the session user's loopback traffic through (`allow_local_binding`). */
  loopback: boolean;
  /** Endpoints given by IP address (a model gateway on `http://10.0.0.5:8080`), let through directly. */
  direct: readonly { address: string; port: number }[];
};

/** A network limit in force: the proxy environment for the session and checks, what it refused. */
export type NetworkLimit = {
  env: Record<string, string>;
  denials: () => EgressDenial[];
  moreDenials: () => number;
};

/**
 * Puts a limit in force for the session user, or says why this runner cannot. The limit lasts
 * until the job's end (the action's entry removes it, also on failure).
 */
export type LimitNetwork = (
  request: NetworkLimitRequest,
) => Promise<{ ok: true; limit: NetworkLimit } | { ok: false; reason: string }>;
