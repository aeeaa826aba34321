import { requiresIsolation } from "../../../src/config/loom-config.ts";
import type { RepoConfigRead } from "../config/read-repo-config.ts";
import type { SessionSandbox } from "./session-isolation.ts";

/**
 * Why the stage must not start, or null when it may: a runner that cannot run the session as a
 * separate user runs it only when `.github/loom.yml` says `session: { require_isolation: false }`.
 * No sandbox at all (a caller that does not isolate) and an isolating one are never refused here.
 */
export async function refuseUnisolated(
  sandbox: SessionSandbox | undefined,
  readConfig: (() => Promise<RepoConfigRead>) | undefined,
): Promise<string | null> {
  if (sandbox === undefined || sandbox.isolation.kind === "user") return null;
  const read = readConfig === undefined ? { ok: true as const, config: null } : await readConfig();
  if (read.ok && !requiresIsolation(read.config)) return null;
  return (
    `not started: this runner cannot run the session as a separate user (${sandbox.isolation.reason}), ` +
    "so the session and the checks could read the runner's tokens. Run loom on a runner where the action " +
    "is root or has passwordless sudo (GitHub-hosted runners have it), or accept the risk with " +
    "`session: { require_isolation: false }` in .github/loom.yml"
  );
}
