import { createGitHubCache } from "../app/github/github-cache.ts";
import { pullRequestPayload } from "../test/support/webhook-payloads.ts";
import { runWebhook, startHarness } from "../test/app/loom-harness.ts";
import { record } from "./targets.ts";

/** Production's reconcile period and the action's heartbeat interval. */
const RECONCILE_MS = 60_000;
const HEARTBEAT_MS = 60_000;

/** GitHub API reads of a running stage's run and heartbeats (the artifact file itself is on blob storage). */
function isRunRead(path: string): boolean {
  return /\/actions\/runs\/\d+(\/artifacts)?$/.test(path) || /\/actions\/artifacts\/\d+\/zip$/.test(path);
}

/**
 * What one long session costs in reads, at production's cadence on a simulated clock: the App as
 * `npm start` runs it (ETag cache on) against the App tests' fake GitHub, which answers
 * conditional requests with 304 like GitHub; a stage that runs for `minutes` while its action
 * uploads a heartbeat every minute and loom reconciles every minute. Counts every request the App
 * makes to the run and its artifacts once the run started, 304s apart (they cost no rate limit).
 */
export async function benchReads(options: { quick?: boolean } = {}): Promise<void> {
  const minutes = options.quick ? 15 : 60;
  let now = Date.UTC(2026, 10, 27, 9, 0, 0);
  const h = await startHarness({ clock: () => now, cache: createGitHubCache() });
  try {
    await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
    const dispatch = h.fake.dispatches.find((d) => d.inputs["stage_id"] === "a");
    if (dispatch === undefined) throw new Error("stage a was not dispatched");
    await h.receive("workflow_run", runWebhook(dispatch, "in_progress"));
    const from = h.fake.answers.length;
    for (let elapsed = 0; elapsed < minutes * 60_000; elapsed += RECONCILE_MS) {
      now += RECONCILE_MS;
      if (elapsed % HEARTBEAT_MS === 0) h.fake.beat(dispatch.runId, now - 1_000);
      await h.engine.reconcile();
      await h.engine.drain();
    }
    const answers = h.fake.answers.slice(from);
    const reads = answers.filter((a) => isRunRead(a.path));
    const charged = reads.filter((a) => a.status !== 304);
    const others = answers.filter((a) => !isRunRead(a.path));
    const perMinute = charged.length / minutes;
    console.log(
      "| session | reconcile | heartbeats | run and artifact reads | 304s | charged a minute | other requests (304s) |",
    );
    console.log("|---|---:|---:|---:|---:|---:|---:|");
    console.log(
      `| ${minutes} min (simulated) | ${RECONCILE_MS / 1000} s | every ${HEARTBEAT_MS / 1000} s | ${reads.length} | ${reads.length - charged.length} | ${perMinute.toFixed(2)} | ${others.length} (${others.filter((a) => a.status === 304).length}) |`,
    );
    const byKind = new Map<string, number>();
    for (const a of [...charged, ...others.filter((other) => other.status !== 304)]) {
      const kind = a.path.replace(/\d+/g, "{id}");
      byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
    }
    console.log(
      `charged (no 304): ${[...byKind].map(([kind, n]) => `${kind} ${n}`).join(", ")}; ${h.fake.cancelled.length === 0 ? "the session was never judged hung" : "the session was judged hung"}`,
    );
    record("run-reads", {
      value: `${perMinute.toFixed(2)} a minute over a ${minutes}-minute session (production cadence, simulated clock; 304s free)`,
      pass: perMinute <= 1 && h.fake.cancelled.length === 0,
    });
  } finally {
    await h.cleanup();
  }
}
