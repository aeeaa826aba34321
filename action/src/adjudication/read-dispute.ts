import { DisputeRequest, type StageDispute } from "../../../src/artifacts/dispute-request.ts";
import type { CheckResult } from "../../../src/artifacts/stage-result.ts";
import { criterionCommand } from "../../../src/plan/criterion-command.ts";
import type { AcceptanceCriterion } from "../../../src/plan/plan.ts";
import { redactSecrets } from "../../../src/redact/redact-secrets.ts";
import { readFileHead } from "../knowledge/read-file-head.ts";

/** The most of `dispute.json` the runner reads. */
const MAX_DISPUTE_FILE = 8_000;

/** What the session's dispute comes to: none, one the stage waits on, or why it is not taken. */
export type DisputeRead =
  { kind: "none" } | { kind: "disputed"; dispute: StageDispute } | { kind: "ignored"; why: string };

/**
 * The session's `dispute.json` checked against the stage: valid JSON of `DisputeRequest`, naming
 * one of the stage's acceptance criteria (by 0-based index, or by its exact command), and that
 * criterion failed in this run (a criterion that passed needs no decision). Read without following
 * links, bounded; the reason is redacted.
 */
export async function readDispute(
  file: string,
  acceptance: readonly AcceptanceCriterion[],
  checks: readonly CheckResult[],
  knownSecrets: readonly string[],
): Promise<DisputeRead> {
  const text = await readFileHead(file, MAX_DISPUTE_FILE).catch((error: NodeJS.ErrnoException) => error);
  if (text instanceof Error) {
    if (text.code === "ENOENT") return { kind: "none" };
    return { kind: "ignored", why: `the dispute file could not be read (${text.code ?? "error"})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return { kind: "ignored", why: "the dispute file is not JSON" };
  }
  const parsed = DisputeRequest.safeParse(json);
  if (!parsed.success)
    return {
      kind: "ignored",
      why: `the dispute file is not valid: ${parsed.error.issues[0]?.message ?? ""}`,
    };
  const request = parsed.data;
  const commands = acceptance.map(criterionCommand);
  const index = request.criterion_index ?? commands.indexOf(request.criterion ?? "");
  const command = commands[index];
  if (command === undefined || index < 0)
    return { kind: "ignored", why: "the dispute names no acceptance criterion of this stage" };
  if (request.criterion !== undefined && request.criterion !== command)
    return { kind: "ignored", why: `criterion_index ${index} is not the criterion the dispute quotes` };
  // Acceptance checks are in plan order, after the setup commands.
  const results = checks.filter((c) => c.kind === "acceptance");
  if (results[index]?.passed !== false)
    return { kind: "ignored", why: `criterion ${index + 1} did not fail: there is nothing to decide` };
  const reason = redactSecrets(request.reason, knownSecrets).slice(0, 500);
  return { kind: "disputed", dispute: { criterion_index: index, criterion: command.slice(0, 1024), reason } };
}
