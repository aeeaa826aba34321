import path from "node:path";
import { prepareIsolation } from "./prepare-isolation.ts";
import { runHostCommand } from "./run-host-command.ts";
import type { SessionSandbox } from "./session-isolation.ts";

/**
 * The sandbox of this job's session: the separate user (created when missing) or the reason there
 * is none, a HOME for it and the action's private folder, both under `tempDir`.
 */
export async function createSessionSandbox(tempDir: string): Promise<SessionSandbox> {
  const isolation = await prepareIsolation({ uid: process.getuid?.() ?? -1, run: runHostCommand });
  return {
    isolation,
    home: path.join(tempDir, "session-home"),
    privateDir: path.join(tempDir, "isolation"),
    owner: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
  };
}
