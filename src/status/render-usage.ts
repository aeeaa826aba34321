import type { SessionUsage } from "../orchestrator/session-report.ts";
import type { PlanState, Session, StageState } from "../orchestrator/state.ts";
import { escapeCell, formatDuration } from "./format-status.ts";

/** `$1.23`; amounts under a cent keep three decimals (`$0.004`), none is `$0.00`. */
export function formatUsd(usd: number): string {
  if (usd > 0 && usd < 0.01) return `$${usd.toFixed(3)}`;
  return `$${usd.toFixed(2)}`;
}

/** `950`, `12.3k`, `4.56M`. */
export function formatTokens(count: number): string {
  if (count < 1000) return String(count);
  if (count < 1_000_000) return `${(count / 1000).toFixed(count < 10_000 ? 2 : 1)}k`;
  return `${(count / 1_000_000).toFixed(2)}M`;
}

const ZERO: SessionUsage = {
  turns: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheCreationTokens: 0,
  costUsd: 0,
  durationMs: 0,
};

function add(a: SessionUsage, b: SessionUsage): SessionUsage {
  return {
    turns: a.turns + b.turns,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheCreationTokens: a.cacheCreationTokens + b.cacheCreationTokens,
    costUsd: a.costUsd + b.costUsd,
    durationMs: a.durationMs + b.durationMs,
  };
}

/** The stage's usage summed over its sessions (retries and merge sessions included); null when none reported. */
export function sumStageUsage(stage: StageState): SessionUsage | null {
  const reported = stage.sessions.flatMap((s) => (s.report ? [s.report.usage] : []));
  return reported.length === 0 ? null : reported.reduce(add, ZERO);
}

/** The plan's usage summed over every stage; null when no session reported any. */
export function sumPlanUsage(state: PlanState): SessionUsage | null {
  const stages = Object.values(state.stages).flatMap((stage) => {
    const usage = sumStageUsage(stage);
    return usage ? [usage] : [];
  });
  return stages.length === 0 ? null : stages.reduce(add, ZERO);
}

function totalTokens(usage: SessionUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheCreationTokens;
}

/** `$0.42 · 123k tokens · 14 turns · 3m 10s of sessions`. */
export function formatUsageLine(usage: SessionUsage): string {
  return [
    formatUsd(usage.costUsd),
    `${formatTokens(totalTokens(usage))} tokens`,
    `${usage.turns} turn${usage.turns === 1 ? "" : "s"}`,
    `${formatDuration(usage.durationMs)} of sessions`,
  ].join(" · ");
}

/** A session's kind as a table shows it: `stage (re-run)` for an attempt of a completed stage's re-run. */
export function describeKind(session: Session): string {
  return session.rerunWhy === undefined ? session.kind : `${session.kind} (re-run)`;
}

/** The stage check run's cost table: one row per session that reported, a total when there are several. */
export function renderStageUsage(stage: StageState): string[] {
  const rows = stage.sessions.flatMap((s) => {
    if (!s.report) return [];
    const u = s.report.usage;
    return [
      `| ${s.attempt} | ${describeKind(s)} | ${u.model === undefined ? "—" : `\`${escapeCell(u.model)}\``} | ${u.turns} | ${formatTokens(u.inputTokens)} | ${formatTokens(u.outputTokens)} | ${formatTokens(u.cacheReadTokens)} | ${formatTokens(u.cacheCreationTokens)} | ${formatUsd(u.costUsd)} | ${formatDuration(u.durationMs)} |`,
    ];
  });
  if (rows.length === 0) return [];
  const total = sumStageUsage(stage);
  if (total && rows.length > 1)
    rows.push(
      `| **all** | | | ${total.turns} | ${formatTokens(total.inputTokens)} | ${formatTokens(total.outputTokens)} | ${formatTokens(total.cacheReadTokens)} | ${formatTokens(total.cacheCreationTokens)} | **${formatUsd(total.costUsd)}** | ${formatDuration(total.durationMs)} |`,
    );
  return [
    "### Cost",
    "",
    "| Attempt | Kind | Model | Turns | Input | Output | Cache read | Cache write | Cost | Session time |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ];
}

/** A code fence longer than any run of backticks in `text`, so untrusted output cannot close it. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(Math.max(3, longest + 1));
}

function checkIcon(check: { passed: boolean; warned?: boolean }): string {
  return !check.passed ? "❌" : check.warned === true ? "⚠️" : "✅";
}

/**
 * The checks of the stage's newest session that ran any: pass or fail, kind, the command, exit code
 * and time, and the redacted output tail of each failure.
 */
export function renderStageChecks(stage: StageState, withOutput: boolean): string[] {
  const session = stage.sessions.findLast((s) => s.report !== undefined && s.report.checks.length > 0);
  if (!session?.report) return [];
  const { checks } = session.report;
  const failed = checks.filter((c) => !c.passed).length;
  const warned = checks.filter((c) => c.passed && c.warned === true).length;
  const lines = [
    `### Checks (attempt ${session.attempt}: ${checks.length - failed} passed, ${failed} failed${warned === 0 ? "" : `, ${warned} with warnings`})`,
    "",
    "| | Kind | Check | Exit | Took |",
    "|---|---|---|---|---|",
    ...checks.map(
      (c) =>
        `| ${checkIcon(c)} | ${c.kind} | ${escapeCell(c.command ?? c.name, 200)} | ${c.exitCode ?? "—"} | ${formatDuration(c.durationMs)} |`,
    ),
  ];
  if (!withOutput) return lines;
  for (const check of checks) {
    if (check.outputTail === undefined) continue;
    const fence = fenceFor(check.outputTail);
    const what = check.kind === "code_review" ? `review: ${check.name}` : (check.command ?? check.name);
    lines.push(
      "",
      `<details><summary>${checkIcon(check)} ${escapeCell(what, 200)}</summary>`,
      "",
      `${fence}text`,
      check.outputTail.replaceAll("\r", ""),
      fence,
      "</details>",
    );
  }
  return lines;
}

/** The deviations the stage's sessions declared (`[DEVIATION Rule N: …]`), by attempt. */
export function renderStageDeviations(stage: StageState): string[] {
  const deviations = stage.sessions.flatMap((s) =>
    (s.report?.deviations ?? []).map((d) => `- attempt ${s.attempt}: ${escapeCell(d, 500)}`),
  );
  return deviations.length === 0 ? [] : [`### Deviations (${deviations.length})`, "", ...deviations];
}
