import { z } from "zod";

/**
 * `loom-session`: Claude Code's own record of a stage session (its transcript JSONL, what
 * `claude --resume <session_id>` reads), uploaded by the run job after the session, redacted like
 * every artifact, so a later `/loom continue` resumes it on another runner.
 */
export const SESSION_STATE_ARTIFACT = "loom-session";
export const SESSION_STATE_MANIFEST = "session.json";
export const SESSION_STATE_TRANSCRIPT = "session.jsonl";
/** A bigger transcript is not uploaded (a later continue uses a handoff prompt instead). */
export const MAX_SESSION_STATE_BYTES = 64 * 1024 * 1024;

/** A Claude Code session id: a UUID (it names the transcript file, so nothing else is accepted). */
export const SessionId = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);

export const SessionStateManifest = z.object({
  version: z.literal(1),
  session_id: SessionId,
  stage_id: z.string().min(1).max(128),
  attempt: z.number().int().positive(),
  /** The Claude Code version that wrote the transcript, when the action knew it. */
  claude_code_version: z.string().max(50).optional(),
});
export type SessionStateManifest = z.infer<typeof SessionStateManifest>;

export type TranscriptCheck = { ok: true } | { ok: false; reason: string };

const TranscriptLine = z.object({ type: z.string(), sessionId: z.string().optional() }).loose();

/**
 * Whether a transcript can be resumed as session `sessionId`: every line a JSON object, and the
 * conversation (user and assistant messages) there and of that session. A redaction keeps JSON
 * valid (`redactArtifactText`); anything else that broke it is caught here, before Claude Code is
 * started on it.
 */
export function checkSessionTranscript(text: string, sessionId: string): TranscriptCheck {
  let messages = 0;
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (error instanceof SyntaxError) return { ok: false, reason: `line ${index + 1} is not JSON` };
      throw error;
    }
    const parsed = TranscriptLine.safeParse(value);
    if (!parsed.success) return { ok: false, reason: `line ${index + 1} is not a transcript entry` };
    if (parsed.data.type !== "user" && parsed.data.type !== "assistant") continue;
    if (parsed.data.sessionId !== sessionId)
      return { ok: false, reason: `line ${index + 1} belongs to another session` };
    messages++;
  }
  return messages === 0 ? { ok: false, reason: "it holds no conversation" } : { ok: true };
}
