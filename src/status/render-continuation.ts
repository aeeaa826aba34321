import type { Continuation, Session, StageState } from "../orchestrator/state.ts";
import { redactSecrets } from "../redact/redact-secrets.ts";
import type { RenderOptions } from "./format-status.ts";

/** Characters of a person's instructions a check run shows. */
export const SHOWN_INSTRUCTIONS_MAX = 1500;

/** A person's words as a blockquote: HTML and mentions defused, at most `max` characters. */
function quote(text: string, max: number): string[] {
  const cut = text.length > max ? `${text.slice(0, max - 1)}…` : text;
  return redactSecrets(cut, [])
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll("@", "@&#8203;")
    .split("\n")
    .map((line) => `> ${line}`);
}

/** How the continue session picked up the earlier one, once it reported. */
function describePickup(session: Session, options: RenderOptions): string | null {
  const continued = session.report?.continued;
  if (continued === undefined) return null;
  const run = options.runUrl
    ? `[#${continued.fromRunId}](${options.runUrl(continued.fromRunId)})`
    : `#${continued.fromRunId}`;
  return continued.mode === "resumed"
    ? `Resumed Claude Code's own session of run ${run}.`
    : `Not resumed: a fresh session got the earlier result and the instructions (handoff prompt), because ${continued.reason ?? "the session state was not available"}.`;
}

/**
 * The section of a stage's check run for its newest `/loom continue`: who asked, from which
 * attempt, their instructions (redacted, bounded, quoted as theirs) and, once the session
 * reported, whether it resumed Claude Code's session or got a handoff prompt. Empty when the
 * stage was never continued.
 */
export function renderContinuation(stage: StageState, options: RenderOptions = {}): string[] {
  const session = stage.sessions.findLast((s) => s.kind === "continue");
  const pending = stage.continuation;
  const shown: { continuation: Continuation; session: Session | null } | null =
    pending !== undefined && (session?.continuation === undefined || pending.at > session.continuation.at)
      ? { continuation: pending, session: null }
      : session?.continuation === undefined
        ? null
        : { continuation: session.continuation, session };
  if (shown === null) return [];
  const { continuation } = shown;
  const attempt = shown.session === null ? "waiting to start" : `attempt ${shown.session.attempt}`;
  const pickup = shown.session === null ? null : describePickup(shown.session, options);
  return [
    `### Continued by @&#8203;${continuation.by} (${attempt}, from attempt ${continuation.fromAttempt})`,
    "",
    ...quote(continuation.instructions, SHOWN_INSTRUCTIONS_MAX),
    ...(pickup === null ? [] : ["", pickup]),
  ];
}
