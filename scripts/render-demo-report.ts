import type { PlanState, StageState } from "../src/orchestrator/state.ts";
import { describeStatus } from "../src/status/format-status.ts";
import { listStages } from "../src/status/render-stage-table.ts";
import { formatTokens, formatUsd, sumPlanUsage, sumStageUsage } from "../src/status/render-usage.ts";

/** Colours text for a terminal (`util.styleText` bound to the output stream), or leaves it plain. */
export type Paint = (format: "green" | "yellow" | "red" | "gray" | "bold" | "cyan", text: string) => string;

export type DemoReportInput = {
  state: PlanState;
  /** The pull request's check runs: name and conclusion (or status while unfinished). */
  checkRuns: { name: string; status: string; conclusion: string | null }[];
  /** The files the pull request changes against its base, with git's status letter. */
  files: { status: string; path: string }[];
  headRef: string;
};

function paintStatus(paint: Paint, stage: StageState): string {
  const text = describeStatus(stage);
  if (stage.status === "completed") return paint("green", text);
  if (stage.status === "skipped") return paint("gray", text);
  if (
    stage.status === "blocked" ||
    stage.status === "merge-blocked" ||
    stage.status === "completed-with-failures" ||
    stage.status === "needs-human-review"
  )
    return paint("red", text);
  if (stage.status === "waiting-for-deps") return paint("gray", text);
  return paint("yellow", text);
}

function paintConclusion(paint: Paint, conclusion: string): string {
  if (conclusion === "success") return paint("green", conclusion);
  if (conclusion === "failure" || conclusion === "action_required") return paint("red", conclusion);
  if (conclusion === "skipped" || conclusion === "neutral" || conclusion === "cancelled")
    return paint("gray", conclusion);
  return paint("yellow", conclusion);
}

/** Pads a cell that may carry colour codes to `width` visible characters. */
function pad(text: string, visible: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - visible.length));
}

/**
 * What `npm run demo` prints once the plan ended: the check runs with their conclusions, a cost
 * table (Claude Code's own turns, tokens and cost per stage, summed over retries, and the plan's
 * total), the graph with coloured statuses and the files the pull request now changes.
 */
export function renderDemoReport(input: DemoReportInput, paint: Paint): string {
  const { state } = input;
  const lines: string[] = [paint("bold", "check runs")];
  for (const run of input.checkRuns) {
    const verdict = run.conclusion ?? run.status;
    lines.push(`  ${run.name.padEnd(24)} ${paintConclusion(paint, verdict)}`);
  }

  lines.push("", paint("bold", "cost (Claude Code's own numbers, every session of the stage)"));
  const header = [
    "stage",
    "status",
    "sessions",
    "turns",
    "input",
    "output",
    "cache read",
    "cache write",
    "cost",
  ];
  const rows = listStages(state).map((stage) => {
    const usage = sumStageUsage(stage);
    const status = describeStatus(stage);
    return {
      cells: [
        stage.id,
        status,
        String(stage.sessions.length),
        usage ? String(usage.turns) : "—",
        usage ? formatTokens(usage.inputTokens) : "—",
        usage ? formatTokens(usage.outputTokens) : "—",
        usage ? formatTokens(usage.cacheReadTokens) : "—",
        usage ? formatTokens(usage.cacheCreationTokens) : "—",
        usage ? formatUsd(usage.costUsd) : "—",
      ],
      painted: paintStatus(paint, stage),
    };
  });
  const total = sumPlanUsage(state);
  const totalCells = [
    "plan total",
    "",
    String(rows.reduce((sum, row) => sum + Number(row.cells[2]), 0)),
    total ? String(total.turns) : "—",
    total ? formatTokens(total.inputTokens) : "—",
    total ? formatTokens(total.outputTokens) : "—",
    total ? formatTokens(total.cacheReadTokens) : "—",
    total ? formatTokens(total.cacheCreationTokens) : "—",
    total ? formatUsd(total.costUsd) : "—",
  ];
  const widths = header.map((h, i) =>
    Math.max(h.length, totalCells[i]!.length, ...rows.map((row) => row.cells[i]!.length)),
  );
  const line = (cells: string[], paintedStatus?: string) =>
    `  ${cells.map((cell, i) => (i === 1 && paintedStatus !== undefined ? pad(paintedStatus, cell, widths[i]!) : cell.padEnd(widths[i]!))).join("  ")}`.trimEnd();
  lines.push(paint("gray", line(header)));
  for (const row of rows) lines.push(line(row.cells, row.painted));
  lines.push(paint("bold", line(totalCells)));

  lines.push("", paint("bold", "graph"));
  for (const stage of listStages(state).filter((s) => !s.removed)) {
    const deps = stage.dependencies.length > 0 ? ` ← ${stage.dependencies.join(", ")}` : "";
    lines.push(`  ${stage.id} [${paintStatus(paint, stage)}]${deps}`);
  }

  lines.push("", paint("bold", `files the pull request changes (${input.headRef})`));
  for (const file of input.files) lines.push(`  ${paint("cyan", file.status)} ${file.path}`);
  return lines.join("\n");
}
