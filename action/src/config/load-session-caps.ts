import { resolveSessionCaps } from "../../../src/config/resolve-session-caps.ts";
import type { SessionCaps } from "../../../src/config/resolve-session-caps.ts";
import type { LoomMetadata, Stage } from "../../../src/plan/plan.ts";
import type { RunStageInputs } from "../run-stage-inputs.ts";
import type { RepoConfigRead } from "./read-repo-config.ts";

/** The caps for this session, and why the repository config was not used when it was not. */
export type LoadedSessionCaps = SessionCaps & { configProblem?: string };

/**
 * Reads the repository config (absent reader: no config), then resolves the session's caps from
 * the stage, the plan, the config and the action inputs. A config that cannot be read or is
 * invalid is left out of the caps and its problem returned: the caller must not start a session
 * then (the repository's ceiling would be skipped).
 */
export async function loadSessionCaps(
  read: (() => Promise<RepoConfigRead>) | undefined,
  metadata: LoomMetadata,
  stage: Stage,
  inputs: Pick<RunStageInputs, "max_budget_usd" | "max_turns">,
): Promise<LoadedSessionCaps> {
  const config = read === undefined ? ({ ok: true, config: null } as const) : await readSafely(read);
  const caps = resolveSessionCaps({
    stage,
    plan: metadata,
    repoConfig: config.ok ? config.config : null,
    inputs,
  });
  return config.ok ? caps : { ...caps, configProblem: config.reason };
}

async function readSafely(read: () => Promise<RepoConfigRead>): Promise<RepoConfigRead> {
  try {
    return await read();
  } catch (error) {
    return { ok: false, reason: `cannot read .github/loom.yml: ${String(error)}` };
  }
}
