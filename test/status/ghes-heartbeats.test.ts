import { test } from "node:test";
import assert from "node:assert/strict";
import { hasLiveHeartbeats } from "../../app/github/read-latest-heartbeat.ts";
import { DEFAULT_SETTINGS } from "../../src/orchestrator/events.ts";
import { renderStageCheckRun } from "../../src/status/render-stage-check-run.ts";
import { makeHeartbeat, makePlanState, makeSession } from "./make-plan-state.ts";

test("heartbeats are live on github.com and GHE.com, not on GitHub Enterprise Server (GHE_HOST)", () => {
  assert.equal(hasLiveHeartbeats(undefined), true);
  assert.equal(hasLiveHeartbeats("https://github.com"), true);
  assert.equal(hasLiveHeartbeats("https://acme.ghe.com"), true);
  assert.equal(hasLiveHeartbeats("https://ghes.acme.internal"), false);
  assert.equal(hasLiveHeartbeats("http://127.0.0.1:4000"), false);
});

test("on GHES a running stage's check run says why it shows no heartbeat and what guards a stall", () => {
  const running = (liveHeartbeats: boolean | undefined) =>
    makePlanState([{ id: "a", status: "executing", sessions: [makeSession()] }], {
      settings: { ...DEFAULT_SETTINGS, ...(liveHeartbeats === undefined ? {} : { liveHeartbeats }) },
    });
  const ghes = renderStageCheckRun(running(false), "a").summary;
  assert.match(
    ghes,
    /not shown while the run is in progress: GitHub Enterprise Server shows a run's artifacts once it has finished/,
  );
  assert.match(ghes, /silence watchdog and timeout/);
  assert.doesNotMatch(renderStageCheckRun(running(undefined), "a").summary, /Enterprise Server/);
  const withHeartbeat = makePlanState(
    [{ id: "a", status: "executing", sessions: [makeSession({ lastHeartbeat: makeHeartbeat() })] }],
    { settings: { ...DEFAULT_SETTINGS, liveHeartbeats: false } },
  );
  assert.doesNotMatch(renderStageCheckRun(withHeartbeat, "a").summary, /Enterprise Server/);
});
