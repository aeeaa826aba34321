import assert from "node:assert/strict";
import { test } from "node:test";
import { renderDemoReport } from "../../scripts/render-demo-report.ts";
import { makeDiamond, makeSession } from "../status/make-plan-state.ts";

test("the demo report is plain text when the output takes no colours", () => {
  const state = makeDiamond({
    a: { status: "completed", merged: true, sessions: [makeSession({ status: "completed" })] },
    b: { status: "blocked", blockedBy: "retries" },
  });
  const report = renderDemoReport(
    {
      state,
      checkRuns: [{ name: "loom: a", status: "completed", conclusion: "success" }],
      files: [{ status: "added", path: "doc/plans/PLAN-demo.md" }],
      headRef: "feature/demo",
    },
    (_format, text) => text,
  );
  assert.ok(!report.includes("\u001b"), "no escape codes");
  assert.match(report, /\n {2}b\s+blocked \(retries\)\s+0\s+—/);
  assert.match(report, /\n {2}plan total\s+1\s+—/, "no session reported numbers: no total invented");
  assert.match(report, /\n {2}added doc\/plans\/PLAN-demo\.md$/);
});
