import type { Logger, ProbotOctokit } from "probot";
import type { ApiCalls } from "../github/effect-context.ts";
import type { GitHubCache } from "../github/github-cache.ts";
import type { LoomMetrics } from "../metrics/create-metrics.ts";
import type { Store } from "../store/store.ts";
import type { LoomRelease } from "../../src/release/loom-releases.ts";

/** Everything the engine needs from outside, passed in (no globals, no environment). */
export type EngineDeps = {
  store: Store;
  /** An Octokit authenticated as the installation (Probot's `app.auth(id)`). */
  getOctokit: (installationId: number) => Promise<ProbotOctokit>;
  now: () => number;
  /** This replica's name in leases. */
  workerId: string;
  log: Logger;
  /** loom's own bot login (`<slug>[bot]`), or null when it cannot be known. */
  getBotLogin: () => Promise<string | null>;
  /** `https://github.com` unless GitHub Enterprise Server. */
  serverUrl?: string;
  /** Shared between effects of this process (ids and ETags). */
  cache?: GitHubCache;
  /** API calls counted here when given. */
  calls?: ApiCalls;
  /** Waits between bounded look-ups inside effects; tests pass an instant one. */
  sleep?: (ms: number) => Promise<void>;
  /** Prometheus metrics of this App instance (`GET /metrics`); nothing is counted without. */
  metrics?: LoomMetrics;
  /**
   * Aborted when loom stops (the same signal abandons its GitHub requests in flight): work it
   * interrupts is left leased, not failed, so releasing the leases hands it on at once.
   */
  stopping?: AbortSignal;
  /** loom's releases a caller workflow's pin is looked up in (default: `LOOM_RELEASES`, this build's table). */
  releases?: readonly LoomRelease[];
};
