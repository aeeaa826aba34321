import { mkdir, realpath, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import type { RunStageDeps } from "../stage/run-stage-deps.ts";
import { locateClaudeConfigDir, locateSessionTranscript } from "./claude-project-dir.ts";

/**
 * Puts an earlier session's transcript where Claude Code's `--resume` looks for it: the project
 * folder of this checkout in the session's configuration folder. Before the paths are lent to the
 * session user (who then owns them).
 */
export async function restoreSessionState(
  deps: Pick<RunStageDeps, "sandbox" | "sessionEnv" | "workspace">,
  state: { sessionId: string; transcript: string },
): Promise<void> {
  const configDir = locateClaudeConfigDir(deps.sandbox, deps.sessionEnv, homedir());
  const file = locateSessionTranscript(configDir, await realpath(deps.workspace), state.sessionId);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, state.transcript, { mode: 0o600 });
}
