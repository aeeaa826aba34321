import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { Probot, ProbotOctokit } from "probot";
import { pacedOctokit } from "../../app/github/paced-octokit.ts";
import { UnthrottledOctokit } from "../../app/github/unthrottled-octokit.ts";
import {
  createWriteLimiter,
  limitsForThisWrite,
  memoryWindowStore,
  PROGRESS_RESERVE,
  runAsDisplayWrites,
  type WindowLimit,
} from "../../app/github/write-limiter.ts";
import { createPrivateKey } from "../support/create-private-key.ts";
import { startEmulator, type Emulator } from "../emulator/start-emulator.ts";

const repo = { owner: "acme", repo: "widgets" };

/** An installation client as the app gets it (`probot.auth(id)`), with the given Octokit class. */
async function installationClient(emulator: Emulator, Octokit: typeof ProbotOctokit) {
  const probot = new Probot({ appId: 1, privateKey: createPrivateKey(), baseUrl: emulator.url, Octokit });
  return probot.auth(4242);
}

/** `count` label creates at once, as a burst of plan writes would go out. */
async function createLabels(
  octokit: Awaited<ReturnType<typeof installationClient>>,
  count: number,
  tag: string,
) {
  return Promise.allSettled(
    Array.from({ length: count }, (_, i) =>
      octokit.rest.issues.createLabel({ ...repo, name: `${tag}-${i}`, color: "ededed" }),
    ),
  );
}

describe("LOOM_GITHUB_THROTTLE=on (pacedOctokit): GitHub's secondary limits, not fixed spacing", () => {
  let emulator: Emulator;
  // Small windows so the test runs in seconds; the same code runs GitHub's 80 a minute. loom's
  // windows are longer than GitHub's by a margin for the time a request takes to get there (wide
  // here: the machine running the tests may be busy).
  const limits: WindowLimit[] = [{ limit: 4, windowMs: 700 }];
  const loomLimits: WindowLimit[] = [{ limit: 4, windowMs: 1_500 }];
  before(async () => {
    emulator = await startEmulator();
  });
  beforeEach(() => {
    emulator.settings.contentLimits = limits;
  });
  after(async () => {
    await emulator.close();
  });
  const refusals = () =>
    emulator.requests.filter((request) => request.path.endsWith("/labels") && request.status === 403).length;

  it("a burst beyond the limit is refused by GitHub without pacing, and lands whole with it", async () => {
    const unpaced = await installationClient(emulator, UnthrottledOctokit);
    const raw = await createLabels(unpaced, 10, "raw");
    assert.ok(
      raw.some((result) => result.status === "rejected"),
      "the emulator enforces the limit",
    );
    const before = refusals();
    await new Promise((resolve) => setTimeout(resolve, 800));

    const limiter = createWriteLimiter(memoryWindowStore(), loomLimits);
    const paced = await installationClient(emulator, pacedOctokit({ limiter }));
    const results = await createLabels(paced, 10, "paced");
    assert.deepEqual(
      results.map((result) => result.status),
      Array(10).fill("fulfilled"),
    );
    assert.equal(refusals(), before, "no write was refused");
  });

  it("sends a burst within the limit at once, where Octokit's default pacing sends one write at a time", async () => {
    // Every write takes 400 ms at GitHub: writes sent at once overlap, paced ones would not.
    const overlapping = async (Octokit: typeof ProbotOctokit, tag: string) => {
      for (let i = 0; i < 3; i++)
        emulator.faults.route({
          method: "POST",
          path: "/repos/{owner}/{repo}/labels",
          type: "latency",
          ms: 400,
        });
      const start = emulator.requests.length;
      await createLabels(await installationClient(emulator, Octokit), 3, tag);
      const arrivals = emulator.requests
        .slice(start)
        .filter((request) => request.method === "POST" && request.path.endsWith("/labels"));
      // `at` is recorded when a write is answered: overlapping writes are answered within one latency.
      const spread = Math.max(...arrivals.map((r) => r.at)) - Math.min(...arrivals.map((r) => r.at));
      return { count: arrivals.length, overlap: spread < 400 };
    };
    emulator.settings.contentLimits = [];
    const paced = await overlapping(
      pacedOctokit({ limiter: createWriteLimiter(memoryWindowStore(), loomLimits) }),
      "burst",
    );
    assert.deepEqual(paced, { count: 3, overlap: true });
    const fixed = await overlapping(ProbotOctokit, "spaced");
    assert.deepEqual(fixed, { count: 3, overlap: false });
  });

  it("when GitHub answers a secondary rate limit anyway, waits its retry-after and lands the write", async () => {
    emulator.faults.route({
      method: "POST",
      path: "/repos/{owner}/{repo}/labels",
      type: "rate-limit",
      status: 403,
      retryAfter: 1,
    });
    const paced = await installationClient(
      emulator,
      pacedOctokit({ limiter: createWriteLimiter(memoryWindowStore(), loomLimits) }),
    );
    const created = await paced.rest.issues.createLabel({ ...repo, name: "after-retry", color: "ededed" });
    assert.equal(created.status, 201);
  });
});

describe("pacedOctokit: display writes leave the progress reserve", () => {
  it("a write made inside runAsDisplayWrites reaches the limiter as a display write, through Octokit's hooks", async () => {
    const emulator = await startEmulator();
    try {
      const seen: number[] = [];
      const limiter = {
        acquire: () => {
          seen.push(limitsForThisWrite([{ limit: 80, windowMs: 61_000 }])[0]?.limit ?? 0);
          return Promise.resolve();
        },
        pause: () => Promise.resolve(),
      };
      const octokit = await installationClient(emulator, pacedOctokit({ limiter }));
      await octokit.rest.issues.createLabel({ ...repo, name: "progress", color: "ededed" });
      await runAsDisplayWrites(() =>
        octokit.rest.issues.createLabel({ ...repo, name: "display", color: "ededed" }),
      );
      assert.deepEqual(seen, [80, 80 - PROGRESS_RESERVE]);
    } finally {
      await emulator.close();
    }
  });
});
