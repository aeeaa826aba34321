import assert from "node:assert/strict";
import { test } from "node:test";
import { COMMENT_MAX, CHECK_OUTPUT_MAX } from "../../src/status/fit-text.ts";
import { renderPlanCheckRun } from "../../src/status/render-plan-check-run.ts";
import { renderStageCheckRun } from "../../src/status/render-stage-check-run.ts";
import { getStatusCommentMarker, renderStatusComment } from "../../src/status/render-status-comment.ts";
import { STAGE_STATUSES } from "../../src/stage/stage-status.ts";
import { makeDiamond, makeHeartbeat, makePlanState, makeReport, makeSession, T0 } from "./make-plan-state.ts";

const running = makeDiamond({
  a: {
    status: "completed",
    merged: true,
    attempt: 1,
    sessions: [makeSession({ status: "completed", finishedAt: T0 + 130_000, detail: "all 4 checks passed" })],
  },
  b: {
    status: "executing",
    attempt: 2,
    // The crashed first attempt reported $0.50; the running one's heartbeat carries no cost.
    sessions: [
      makeSession({
        status: "crashed",
        runId: 2001,
        finishedAt: T0 + 5000,
        report: makeReport({ cost: 0.5 }),
      }),
      makeSession({
        attempt: 2,
        kind: "recovery",
        runId: 2002,
        lastHeartbeat: makeHeartbeat({ costUsd: 0 }),
      }),
    ],
    notes: [{ at: T0, text: "retry 1 after crash" }],
  },
  c: { status: "blocked", blockedBy: "label", attempt: 0 },
});

test("the status comment starts with the plan's hidden marker and shows counts, a coloured graph and the stage table", () => {
  const body = renderStatusComment(running);
  assert.ok(body.startsWith(getStatusCommentMarker("doc/plans/PLAN-demo.md")));
  assert.match(body, /\*\*1\/4 merged\*\* · 1 waiting-for-deps · 1 executing · 1 blocked/);
  assert.match(body, /```mermaid\ngraph TD/);
  assert.match(body, /classDef executing/);
  assert.match(body, /\| Stage \| Status \| Attempt \| Elapsed \| Cost \| Last heartbeat \| Notes \|/);
  assert.match(body, /\| `a` \| ✅ completed, merged \| 1 \| 2m 00s \| — \| — \| all 4 checks passed \|/);
  assert.match(
    body,
    /\| `b` \| 🟡 executing \| 2 \(recovery\) \| since 12:00 UTC \| \$0\.50 \| 12:01 UTC · 42% context · Bash · npm test \| retry 1 after crash \|/,
  );
  assert.match(body, /\| `c` \| ⛔ blocked \(label\) \| — \| — \|/);
});

test("a stage waiting out its backoff shows when the retry is due, as a time", () => {
  const waiting = makeDiamond({
    b: {
      status: "blocked",
      attempt: 1,
      retryAt: T0 + 90_000,
      sessions: [makeSession({ status: "crashed" })],
    },
  });
  assert.match(renderStageCheckRun(waiting, "b").summary, /\*\*Retry due:\*\* 12:01 UTC/);
});

test("a heartbeat shows its absolute time (the comment is not rewritten as time passes), with the date once a day old", () => {
  const old = makeDiamond({
    b: {
      status: "executing",
      attempt: 1,
      sessions: [makeSession({ lastHeartbeat: makeHeartbeat({ timestamp: T0 - 86_400_000 }) })],
    },
  });
  assert.match(renderStatusComment(old), /\| 2026-11-20 12:00 UTC · 42% context · Bash · npm test \|/);
});

test("untrusted text cannot break the table, inject HTML or mention people", () => {
  const state = makePlanState([
    {
      id: "a",
      status: "executing",
      sessions: [
        makeSession({ lastHeartbeat: makeHeartbeat({ activity: "echo a|b <script> @octocat\nnext -->" }) }),
      ],
    },
  ]);
  const body = renderStatusComment(state);
  const row = body.split("\n").find((l) => l.startsWith("| `a`"))!;
  assert.equal(row.split(" | ").length, 7);
  assert.doesNotMatch(body, /<script>|@octocat|next -->/);
  assert.match(row, /a\\\|b &lt;script&gt; @&#8203;octocat next --&gt;/);
});

test("a stage check run shows status, attempt, elapsed, heartbeat, cost and the run link", () => {
  const view = renderStageCheckRun(running, "b", {
    runUrl: (id) => `https://github.com/o/r/actions/runs/${id}`,
  });
  assert.equal(view.name, "loom: b");
  assert.equal(view.status, "in_progress");
  assert.equal(view.title, "b: executing");
  for (const want of [
    /\*\*Attempt:\*\* 2 \(recovery session, running\)/,
    /\*\*Elapsed:\*\* since 12:00 UTC/,
    /42% context · Bash · npm test/,
    /\*\*Cost:\*\* \$0\.50/,
    /\[#2002\]\(https:\/\/github\.com\/o\/r\/actions\/runs\/2002\)/,
    /retry 1 after crash/,
  ]) {
    assert.match(view.summary, want);
  }
});

test("the plan check run carries the table in its summary and mermaid plus a text fallback in its text", () => {
  const view = renderPlanCheckRun(running);
  assert.equal(view.name, "loom: PLAN-demo");
  assert.equal(view.title, "1/4 stages merged");
  assert.match(view.summary, /\| `d` \|/);
  assert.match(view.text ?? "", /```mermaid/);
  assert.match(view.text ?? "", /d \[waiting-for-deps\] ← b, c/);
});

test("an untrusted plan offers an Approve button on its plan check run", () => {
  const view = renderPlanCheckRun({ ...running, trusted: false });
  assert.equal(view.title, "Waiting for approval");
  assert.deepEqual(
    view.actions.map((a) => a.identifier),
    ["approve"],
  );
  assert.match(renderStatusComment({ ...running, trusted: false }), /waiting for `\/loom approve`/);
});

test("with 500 stages and long notes everything still fits GitHub's limits, shrinking details first", () => {
  const stages = Array.from({ length: 500 }, (_, i) => ({
    id: `stage-with-a-rather-long-identifier-${i}`,
    dependencies:
      i === 0
        ? []
        : [
            `stage-with-a-rather-long-identifier-${i - 1}`,
            `stage-with-a-rather-long-identifier-${Math.floor(i / 2)}`,
          ],
    status: STAGE_STATUSES[i % STAGE_STATUSES.length]!,
    attempt: 1,
    sessions: [
      makeSession({ lastHeartbeat: makeHeartbeat({ activity: "x".repeat(300) }), detail: "y".repeat(900) }),
    ],
    notes: Array.from({ length: 5 }, (_, n) => ({ at: T0, text: `note ${n} ${"z".repeat(400)}` })),
  }));
  const state = makePlanState(stages);
  const body = renderStatusComment(state);
  assert.ok(body.length <= COMMENT_MAX, `comment is ${body.length} characters`);
  assert.ok(body.startsWith(getStatusCommentMarker(state.plan.path)));
  assert.match(body, /stage-with-a-rather-long-identifier-499/);
  const plan = renderPlanCheckRun(state);
  assert.ok(plan.summary.length <= CHECK_OUTPUT_MAX && (plan.text ?? "").length <= CHECK_OUTPUT_MAX);
  const stage = renderStageCheckRun(state, "stage-with-a-rather-long-identifier-7");
  assert.ok(stage.summary.length <= CHECK_OUTPUT_MAX);
});

test("a small plan keeps every detail (nothing is dropped when it fits)", () => {
  const body = renderStatusComment(running);
  assert.doesNotMatch(body, /left out|truncated/);
});

test("a graph beyond mermaid's limits (over 500 edges) is shown as text instead of a broken diagram", () => {
  const stages = Array.from({ length: 300 }, (_, i) => ({
    id: `s${i}`,
    dependencies: i < 3 ? [] : [`s${i - 1}`, `s${i - 2}`, `s${i - 3}`],
  }));
  const body = renderStatusComment(makePlanState(stages));
  assert.doesNotMatch(body, /```mermaid/);
  assert.match(body, /Graph \(too large for mermaid\)/);
  assert.match(body, /s299 \[waiting-for-deps\] ← s298, s297, s296/);
  assert.doesNotMatch(renderPlanCheckRun(makePlanState(stages)).text ?? "", /```mermaid/);
});

test("when the pull request closes, unfinished stage checks end as cancelled without buttons; merged ones stay green", () => {
  const closed = { ...running, closed: true };
  const b = renderStageCheckRun(closed, "b");
  assert.deepEqual([b.status, b.conclusion, b.actions], ["completed", "cancelled", []]);
  const a = renderStageCheckRun(closed, "a");
  assert.deepEqual([a.status, a.conclusion], ["completed", "success"]);
});

test("while a merge session runs, the table and the check run show its attempt and kind, as its run is named", () => {
  const merging = makeDiamond({
    a: {
      status: "merge-conflict",
      attempt: 1,
      sessions: [
        makeSession({ status: "completed", finishedAt: T0 + 60_000 }),
        makeSession({ attempt: 2, kind: "merge", runId: 1002 }),
      ],
    },
  });
  assert.match(renderStatusComment(merging), /\| `a` \| 🔀 merge-conflict \| 2 \(merge\) \|/);
  assert.match(renderPlanCheckRun(merging).summary, /\| `a` \| 🔀 merge-conflict \| 2 \(merge\) \|/);
  assert.match(renderStageCheckRun(merging, "a").summary, /\*\*Attempt:\*\* 2 \(merge session, running\)/);
});

test("a stage whose run no runner has picked up says so on its check run", () => {
  const waiting = makePlanState([
    {
      id: "a",
      status: "executing",
      sessions: [makeSession({ status: "spawning", startedAt: null, runnerWaitNoticed: true })],
    },
  ]);
  assert.match(
    renderStageCheckRun(waiting, "a").summary,
    /\*\*Waiting for a runner\*\* since 12:00 UTC: no runner has picked up the run yet/,
  );
  const started = makePlanState([{ id: "a", status: "executing", sessions: [makeSession()] }]);
  assert.doesNotMatch(renderStageCheckRun(started, "a").summary, /Waiting for a runner/);
});
