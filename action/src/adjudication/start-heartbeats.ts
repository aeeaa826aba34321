import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Heartbeat } from "../../../src/artifacts/heartbeat.ts";
import type { RunStageInputs } from "../run-stage-inputs.ts";
import type { RunStageDeps } from "../stage/run-stage-deps.ts";
import * as names from "../upload/artifact-port.ts";

/** Heartbeats every minute (and one now) while a check run's checks run; `stop` ends them. */
export function startHeartbeats(
  inputs: RunStageInputs,
  deps: RunStageDeps,
  stageId: string,
): { stop: () => Promise<void> } {
  let count = 0;
  let pending: Promise<void> = Promise.resolve();
  const upload = async (): Promise<void> => {
    if (count >= names.MAX_HEARTBEAT_ARTIFACTS) return;
    count += 1;
    const heartbeat: Heartbeat = {
      stage_id: stageId,
      session_id: "",
      attempt: inputs.attempt,
      timestamp: new Date(deps.now()).toISOString(),
      context_percent: 0,
      last_tool: null,
      activity: "running the checks with the amended criteria",
      turns: 0,
      cost_usd: 0,
    };
    const dir = path.join(deps.tempDir, "heartbeats", String(count));
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, names.HEARTBEAT_FILE);
    await writeFile(file, `${JSON.stringify(heartbeat)}\n`);
    await deps.uploadArtifact(`${names.HEARTBEAT_ARTIFACT_PREFIX}${count}`, [file], dir);
  };
  const tick = (): void => {
    pending = pending.then(upload).catch((error: unknown) => {
      deps.log("heartbeat not uploaded", { error: String(error).slice(0, 300) });
    });
  };
  tick();
  const timer = setInterval(tick, 60_000);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await pending;
    },
  };
}
