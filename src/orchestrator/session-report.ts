import type { CheckKind, StageResult } from "../artifacts/stage-result.ts";

/** What one session cost, from Claude Code's own usage as the action recorded it (never estimated). */
export type SessionUsage = {
  /** The model the session ran, when the action recorded it. */
  model?: string;
  turns: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  costUsd: number;
  durationMs: number;
};

/** One acceptance or goal-backward check as a person reads it on the stage's check run. */
export type CheckSummary = {
  kind: CheckKind;
  name: string;
  command?: string;
  passed: boolean;
  /** Passed with a finding the plan only warns about (`change_impact` `policy: warn`, …). */
  warned?: boolean;
  exitCode?: number;
  durationMs: number;
  /**
   * The end of the check's output (redacted by the action): for a failed or warned check, and a
   * review dimension's findings.
   */
  outputTail?: string;
  /** Files and lines of the repository a failed check's output names (annotations on the check run). */
  locations?: { path: string; line: number; column?: number }[];
};

/** What a finished session reported: its cost, its checks, its declared deviations, its learnings. */
export type SessionReport = {
  usage: SessionUsage;
  checks: CheckSummary[];
  deviations: string[];
  learningsAdded: number;
  /** The summaries of the learnings it added, in order (absent from states stored by older apps). */
  learningsAddedSummaries?: string[];
  /** The learnings its prompt carried, best first (absent from older actions and states). */
  learningsGiven?: { id: string; summary: string }[];
  /** A continue session: resumed Claude Code's session, or a handoff prompt and why. */
  continued?: { mode: "resumed" | "handoff"; fromRunId: number; reason?: string };
  /** The network sandbox (absent when the network was open, and from older actions). */
  network?: NetworkReport;
  /** The acceptance criterion the session disputed (0-based index, its command) and why (absent: none). */
  dispute?: { criterionIndex: number; criterion: string; reason: string };
};

/** What the network sandbox held the session to and what it refused. */
export type NetworkReport = {
  mode: "limited" | "advisory";
  allow: string[];
  reason?: string;
  notes: string[];
  blocked: { host: string; port: number; count: number; command?: string }[];
  moreBlocked: number;
};

/** Bounds of the network report: a stage's state stays small however many hosts were refused. */
export const REPORT_MAX_BLOCKED = 20;
export const REPORT_MAX_ALLOW = 30;

/** Bounds that keep a plan's stored state small however chatty a session was. */
export const REPORT_MAX_CHECKS = 40;
export const REPORT_MAX_TAIL = 1200;
export const REPORT_MAX_DEVIATIONS = 10;
export const REPORT_MAX_TEXT = 500;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The end of `text`, at most `max` characters (the end of an output says why it failed). */
function tail(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}

/** Whether a person reads the check's output: it failed or warned, or it is a review's findings. */
function showsOutput(check: StageResult["checks"][number]): boolean {
  return !check.passed || check.warned === true || check.kind === "code_review";
}

/** A session's report from its `loom-result` (already redacted and bounded by the action; bounded again here). */
export function toSessionReport(result: StageResult): SessionReport {
  return {
    usage: {
      ...(result.model === undefined ? {} : { model: clip(result.model, 100) }),
      turns: result.turns,
      inputTokens: result.tokens.input,
      outputTokens: result.tokens.output,
      cacheReadTokens: result.tokens.cache_read,
      cacheCreationTokens: result.tokens.cache_creation,
      costUsd: result.cost_usd,
      durationMs: result.duration_ms,
    },
    checks: result.checks.slice(0, REPORT_MAX_CHECKS).map((check) => ({
      kind: check.kind,
      name: clip(check.name, REPORT_MAX_TEXT),
      ...(check.command === undefined ? {} : { command: clip(check.command, REPORT_MAX_TEXT) }),
      passed: check.passed,
      ...(check.warned === true ? { warned: true } : {}),
      ...(check.exit_code === undefined ? {} : { exitCode: check.exit_code }),
      durationMs: check.duration_ms,
      ...(!showsOutput(check) || check.output_tail === ""
        ? {}
        : { outputTail: tail(check.output_tail, REPORT_MAX_TAIL) }),
      ...(check.passed || !check.locations?.length
        ? {}
        : { locations: check.locations.map((l) => ({ ...l, path: clip(l.path, REPORT_MAX_TEXT) })) }),
    })),
    deviations: result.deviations.slice(0, REPORT_MAX_DEVIATIONS).map((d) => clip(d, REPORT_MAX_TEXT)),
    learningsAdded: result.learnings?.accepted.length ?? 0,
    ...(result.learnings === undefined || result.learnings.accepted.length === 0
      ? {}
      : { learningsAddedSummaries: result.learnings.accepted.map((l) => clip(l.summary, REPORT_MAX_TEXT)) }),
    ...(result.continued === undefined
      ? {}
      : {
          continued: {
            mode: result.continued.mode,
            fromRunId: result.continued.from_run_id,
            ...(result.continued.reason === undefined
              ? {}
              : { reason: clip(result.continued.reason, REPORT_MAX_TEXT) }),
          },
        }),
    ...(result.network === undefined ? {} : { network: toNetworkReport(result.network) }),
    ...(result.dispute === undefined
      ? {}
      : {
          dispute: {
            criterionIndex: result.dispute.criterion_index,
            criterion: clip(result.dispute.criterion, REPORT_MAX_TEXT * 2),
            reason: clip(result.dispute.reason, REPORT_MAX_TEXT),
          },
        }),
    ...(result.learnings_given === undefined || result.learnings_given.length === 0
      ? {}
      : {
          learningsGiven: result.learnings_given.map((l) => ({
            id: l.id,
            summary: clip(l.summary, REPORT_MAX_TEXT),
          })),
        }),
  };
}

function toNetworkReport(network: NonNullable<StageResult["network"]>): NetworkReport {
  return {
    mode: network.mode,
    allow: network.allow.slice(0, REPORT_MAX_ALLOW).map((d) => clip(d, 255)),
    ...(network.reason === undefined ? {} : { reason: clip(network.reason, REPORT_MAX_TEXT) }),
    notes: network.notes.slice(0, 10).map((n) => clip(n, REPORT_MAX_TEXT)),
    blocked: network.blocked.slice(0, REPORT_MAX_BLOCKED).map((b) => ({
      host: clip(b.host, 255),
      port: b.port,
      count: b.count,
      ...(b.command === undefined ? {} : { command: clip(b.command, 200) }),
    })),
    moreBlocked: network.more_blocked + Math.max(0, network.blocked.length - REPORT_MAX_BLOCKED),
  };
}
