import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BOT, startE2E, type E2E } from "../e2e/harness.ts";
import type { PullRecord } from "../e2e/e2e-requests.ts";
import { planText, scriptStages, writeFiles } from "../e2e/model-script.ts";

const PLAN = planText(
  "Metrics",
  `
- id: only
  name: Only
  description: Write only.txt
  acceptance: ["grep -q one only.txt"]
`,
);

/** Every metric loom serves at /metrics, with its Prometheus type. */
const METRICS = {
  loom_webhook_deliveries_received_total: "counter",
  loom_webhook_deliveries_processed_total: "counter",
  loom_inbox_depth: "gauge",
  loom_outbox_depth: "gauge",
  loom_effect_latency_seconds: "histogram",
  loom_github_requests_total: "counter",
  loom_github_rate_limit_remaining: "gauge",
  loom_dispatches_total: "counter",
  loom_merges_total: "counter",
  loom_stage_outcomes_total: "counter",
  loom_plan_duration_seconds: "histogram",
} as const;

type Scrape = {
  text: string;
  types: Map<string, string>;
  samples: { name: string; labels: string; value: number }[];
};

/** GET /metrics of the running App, parsed from Prometheus' text format. */
async function scrape(e2e: E2E): Promise<Scrape> {
  const response = await fetch(new URL("/metrics", e2e.app.webhookUrl));
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  const types = new Map<string, string>();
  const samples: Scrape["samples"] = [];
  for (const line of text.split("\n")) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (sample) samples.push({ name: sample[1]!, labels: sample[2] ?? "", value: Number(sample[3]) });
  }
  return { text, types, samples };
}

/** The sum of a metric's samples whose labels include every `name="value"` given (0 when none). */
function value(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return scrape.samples
    .filter((s) => s.name === name && wanted.every((w) => s.labels.split(",").includes(w)))
    .reduce((sum, s) => sum + s.value, 0);
}

/**
 * `/metrics` of a running App (the in-process App over HTTP, as `npm start` serves it) while a
 * one-stage plan runs end to end on the GitHub emulator: every metric is there, and each moves
 * when its event happens.
 */
describe("GET /metrics while a plan runs", { timeout: 200_000 }, () => {
  let e2e: E2E;
  let pull: PullRecord;
  let before_: Scrape;
  let after_: Scrape;
  let depth: Scrape;
  let drained: Scrape;

  before(async () => {
    e2e = await startE2E({ script: scriptStages({ only: writeFiles({ "only.txt": "one\n" }) }) });
    before_ = await scrape(e2e);
    pull = await e2e.openPlan({ files: { "doc/plans/PLAN-metrics.md": PLAN } });
    await e2e.waitForPlanEnd(pull, "PLAN-metrics", 1, 150_000);
    await e2e.app.engine.idle();
    after_ = await scrape(e2e);

    // The depth gauges read the store at scrape time: with the engine stopped, work waits there.
    await e2e.app.engine.stop();
    const now = Date.now();
    await e2e.store.recordDelivery({
      id: "metrics-probe",
      name: "pull_request",
      payload: {},
      receivedAt: now,
    });
    const probe = {
      installationId: 1,
      owner: "acme",
      repo: "widgets",
      pr: 999,
      planPath: "doc/plans/PLAN-probe.md",
    };
    await e2e.store.commitPlan(probe, {
      expectedVersion: 0,
      state: {},
      active: false,
      effects: [{ key: "metrics-probe-effect", effect: { type: "reply" } }],
      timers: [],
      now,
    });
    depth = await scrape(e2e);
    const [delivery] = await e2e.store.claimDeliveries("metrics-test", 1, 60_000, now);
    await e2e.store.completeDelivery(delivery!.id, now);
    const [effect] = await e2e.store.claimEffects("metrics-test", 1, 60_000, now);
    await e2e.store.failEffect(effect!.key, "probe", null);
    drained = await scrape(e2e);
  });
  after(async () => {
    await e2e?.close();
  });

  it("serves every metric, before anything happened and after", () => {
    for (const scraped of [before_, after_]) {
      for (const [name, type] of Object.entries(METRICS)) assert.equal(scraped.types.get(name), type, name);
    }
    assert.ok(after_.types.has("process_cpu_user_seconds_total"), "Node.js process metrics too");
  });

  it("counts the webhook deliveries received, by event, and processed, by outcome", () => {
    const received = (s: Scrape) =>
      value(s, "loom_webhook_deliveries_received_total", { event: "pull_request" });
    assert.equal(received(before_), 0);
    assert.ok(received(after_) >= 1, after_.text);
    assert.ok(value(after_, "loom_webhook_deliveries_received_total", { event: "workflow_run" }) >= 1);
    assert.equal(value(before_, "loom_webhook_deliveries_processed_total", { outcome: "processed" }), 0);
    assert.ok(value(after_, "loom_webhook_deliveries_processed_total", { outcome: "processed" }) >= 1);
  });

  it("counts one dispatch, one merge, one completed stage session and one finished plan", () => {
    for (const [name, labels] of [
      ["loom_dispatches_total", { result: "dispatched" }],
      ["loom_merges_total", { result: "merged" }],
      ["loom_stage_outcomes_total", { outcome: "completed", kind: "stage" }],
      ["loom_plan_duration_seconds_count", { end: "done" }],
    ] as const) {
      assert.equal(value(before_, name, labels), 0, name);
      assert.equal(value(after_, name, labels), 1, `${name}\n${after_.text}`);
    }
    assert.ok(value(after_, "loom_plan_duration_seconds_sum", { end: "done" }) > 0);
  });

  it("times effects from decided to done, by effect type", () => {
    for (const effect of ["dispatchRun", "mergeBranch", "syncCheckRun"]) {
      assert.equal(value(before_, "loom_effect_latency_seconds_count", { effect }), 0);
      assert.ok(value(after_, "loom_effect_latency_seconds_count", { effect }) >= 1, effect);
    }
  });

  it("counts GitHub requests by method and status class, and keeps the rate limit left", () => {
    const posts = (s: Scrape) => value(s, "loom_github_requests_total", { method: "POST", status: "2xx" });
    const gets = (s: Scrape) => value(s, "loom_github_requests_total", { method: "GET", status: "2xx" });
    assert.ok(posts(after_) > posts(before_), after_.text);
    assert.ok(gets(after_) > gets(before_));
    assert.equal(value(before_, "loom_github_rate_limit_remaining"), 0);
    // The emulator answers like GitHub with `x-ratelimit-remaining: 4999`, here for its one installation.
    const limits = after_.samples.filter((s) => s.name === "loom_github_rate_limit_remaining");
    assert.deepEqual(
      limits.map((s) => [s.labels, s.value]),
      [['installation="4242"', 4999]],
    );
    // Whether this short run polls an unchanged resource (a 304) depends on timing; the 304 count
    // is pinned by test/app/observe-octokit.test.ts.
  });

  it("reads the inbox and outbox depth from the store at each scrape", () => {
    assert.equal(value(after_, "loom_inbox_depth"), 0);
    assert.equal(value(after_, "loom_outbox_depth"), 0);
    assert.equal(value(depth, "loom_inbox_depth"), 1);
    assert.equal(value(depth, "loom_outbox_depth"), 1);
    assert.equal(value(drained, "loom_inbox_depth"), 0);
    assert.equal(value(drained, "loom_outbox_depth"), 0);
  });

  it("left the plan green", async () => {
    const runs = await e2e.checkRuns(pull);
    assert.deepEqual(
      runs.map((r) => [r.name, r.conclusion]),
      [
        ["loom: only", "success"],
        ["loom: PLAN-metrics", "success"],
      ],
      e2e.describe(),
    );
    assert.ok(e2e.emulator.state.comments.some((c) => c.user === BOT));
  });
});
