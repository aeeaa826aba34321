import { test } from "node:test";
import assert from "node:assert/strict";
import { runStage } from "../../action/src/run-stage.ts";
import type { RepoConfigRead } from "../../action/src/config/read-repo-config.ts";
import type { RunSessionOptions } from "../../action/src/session/run-session.ts";
import { DEFAULT_CAPS } from "../../src/config/default-caps.ts";
import { parseLoomConfig } from "../../src/config/loom-config.ts";
import { deps, finishedSession, inputs, makeFixture } from "./run-stage-fixture.ts";

const STAGE = `
- id: build
  name: Build the greeter
  description: Write greet.txt
  max_budget_usd: 8
  max_turns: 25
`;

const BARE = "- id: build\n  name: Build the greeter\n  description: Write greet.txt\n";

/** What the action would read at the dispatched commit for this `.github/loom.yml` text. */
function repoConfig(text: string): () => Promise<RepoConfigRead> {
  const parsed = parseLoomConfig(text);
  assert.ok(parsed.ok);
  return () => Promise.resolve({ ok: true, config: parsed.config });
}

async function runWith(
  t: { after: (fn: () => Promise<void>) => void },
  extra: Parameters<typeof deps>[2],
  overrides: Record<string, string> = {},
  stage = STAGE,
) {
  const f = await makeFixture(stage, t);
  const logged: string[] = [];
  let seen: RunSessionOptions | undefined;
  const { result } = await runStage(
    inputs({ max_budget_usd: "1", max_turns: "5", ...overrides }),
    deps(
      f,
      (o) => {
        seen = o;
        return finishedSession(o);
      },
      { log: (message, data) => logged.push(`${message} ${JSON.stringify(data)}`), ...extra },
    ),
  );
  assert.ok(seen !== undefined, "the session ran");
  return { seen, result, logged };
}

test("the stage's caps from the plan reach the session over the action inputs", async (t) => {
  const { seen } = await runWith(t, {});
  assert.equal(seen.maxBudgetUsd, 8);
  assert.equal(seen.maxTurns, 25);
});

test("a stage without caps runs with the action inputs' caps", async (t) => {
  const { seen } = await runWith(t, {}, { max_budget_usd: "1.5", max_turns: "7" }, BARE);
  assert.equal(seen.maxBudgetUsd, 1.5);
  assert.equal(seen.maxTurns, 7);
});

test("with no cap anywhere and no .github/loom.yml the session runs with loom's default caps, and the log says whence", async (t) => {
  const { seen, logged } = await runWith(t, {}, { max_budget_usd: "", max_turns: "" }, BARE);
  assert.equal(seen.maxBudgetUsd, DEFAULT_CAPS.sessionBudgetUsd);
  assert.equal(seen.maxTurns, DEFAULT_CAPS.sessionTurns);
  assert.ok(
    logged.includes(
      `session caps {"max_budget_usd":${DEFAULT_CAPS.sessionBudgetUsd},"max_budget_usd_from":"default","max_turns":${DEFAULT_CAPS.sessionTurns},"max_turns_from":"default"}`,
    ),
    logged.join("\n"),
  );
});

test("none in .github/loom.yml runs the session without --max-budget-usd or --max-turns when nothing else caps it", async (t) => {
  const { seen, logged } = await runWith(
    t,
    { readRepoConfig: repoConfig("session:\n  max_budget_usd: none\n  max_turns: none\n") },
    { max_budget_usd: "", max_turns: "" },
    BARE,
  );
  assert.equal(seen.maxBudgetUsd, undefined);
  assert.equal(seen.maxTurns, undefined);
  assert.ok(
    logged.some((line) => line.includes('"max_budget_usd":"none","max_budget_usd_from":"opted out"')),
  );
});

test("the repository's ceiling in .github/loom.yml lowers a larger plan value, and the log says so", async (t) => {
  const { seen, logged } = await runWith(t, {
    readRepoConfig: repoConfig("session:\n  max_budget_usd: 2\n  max_turns: 100\n"),
  });
  assert.equal(seen.maxBudgetUsd, 2);
  assert.equal(seen.maxTurns, 25);
  assert.ok(
    logged.some((line) => line.includes("the stage asks for $8; .github/loom.yml allows at most $2")),
    logged.join("\n"),
  );
});

test("an invalid .github/loom.yml stops the stage before its session: the ceiling cannot be skipped", async (t) => {
  const { seen, result } = await runWithout(t, () =>
    Promise.resolve({ ok: false, reason: ".github/loom.yml is invalid: session.max_turns: bad" }),
  );
  assert.equal(seen, undefined, "no session ran");
  assert.equal(result.outcome, "crashed");
  assert.match(
    result.reason,
    /^not started: \.github\/loom\.yml is invalid: session\.max_turns: bad, so its session caps could not be applied; fix it on the default branch/,
  );
  assert.match(result.reason, /`\/loom retry build`/);
});

test("a config reader that throws stops the stage too, with the error", async (t) => {
  const { seen, result } = await runWithout(t, () => Promise.reject(new Error("socket closed")));
  assert.equal(seen, undefined);
  assert.match(result.reason, /^not started: cannot read \.github\/loom\.yml: Error: socket closed/);
});

async function runWithout(
  t: { after: (fn: () => Promise<void>) => void },
  readRepoConfig: () => Promise<RepoConfigRead>,
) {
  const f = await makeFixture(STAGE, t);
  let seen: RunSessionOptions | undefined;
  const { result } = await runStage(
    inputs(),
    deps(
      f,
      (o) => {
        seen = o;
        return finishedSession(o);
      },
      { readRepoConfig },
    ),
  );
  return { seen, result };
}
