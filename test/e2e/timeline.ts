import { readFile } from "node:fs/promises";
import { readZip } from "../../app/github/read-zip.ts";
import type { RecordedRequest } from "../emulator/handle-request.ts";
import type { Emulator } from "../emulator/start-emulator.ts";
import { dispatchesOf, mergesOf } from "./e2e-requests.ts";
import type { RunnerEvent } from "./runner/create-stage-runner.ts";

/**
 * A readable, live timeline of an end-to-end run: what loom asked of GitHub (dispatches, merges,
 * the status comment), what the Actions side did (runs, acceptance, pushes) and the heartbeats in
 * between. `onRunnerEvent` goes to `startE2E`; `watch` polls the emulator's records.
 */
export type Timeline = {
  onRunnerEvent(event: RunnerEvent): void;
  watch(emulator: Emulator): void;
  stop(): void;
};

type CheckLine = { name: string; passed: boolean };

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1).padStart(6)}s`;
}

export function createTimeline(print: (line: string) => void, start = Date.now()): Timeline {
  const say = (icon: string, text: string): void => print(`${seconds(Date.now() - start)}  ${icon} ${text}`);
  const stageOf = new Map<number, string>();
  let timer: NodeJS.Timeout | null = null;
  let seenRequests = 0;
  const seenArtifacts = new Set<number>();
  let commented = false;

  const describeRequests = (requests: readonly RecordedRequest[]): void => {
    const fresh = requests.slice(seenRequests);
    const offset = seenRequests;
    seenRequests = requests.length;
    for (const d of dispatchesOf(fresh)) {
      const note = d.kind === "stage" ? "" : ` (${d.kind} session)`;
      say("🚀", `loom dispatched stage ${d.stageId}, attempt ${d.attempt}${note}`);
    }
    for (const m of mergesOf(fresh)) {
      const what = `${m.head} → ${m.base}`;
      if (m.status === 201) say("🔀", `merged ${what}`);
      else if (m.status === 409) say("⚔️ ", `merge conflict (409) ${what}`);
      else say("·", `merge ${what}: ${m.status}`);
    }
    for (const [i, r] of fresh.entries()) {
      if (!commented && r.operationId === "issues/create-comment" && r.status === 201) {
        commented = true;
        say("💬", `status comment posted (request ${offset + i + 1})`);
      }
    }
  };

  const describeHeartbeats = (emulator: Emulator): void => {
    for (const artifact of emulator.state.artifacts) {
      if (seenArtifacts.has(artifact.id) || !artifact.name.startsWith("loom-heartbeat-")) continue;
      seenArtifacts.add(artifact.id);
      const zip = readZip(artifact.zip);
      const text = zip.ok ? [...zip.files.values()][0]?.toString("utf8") : undefined;
      const beat = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      const stage = stageOf.get(artifact.runId) ?? "?";
      const activity = typeof beat["activity"] === "string" ? beat["activity"] : "starting";
      say(
        "💓",
        `heartbeat ${stage}: ${activity} (turn ${typeof beat["turns"] === "number" ? beat["turns"] : 0})`,
      );
    }
  };

  return {
    onRunnerEvent(event) {
      switch (event.type) {
        case "run.started":
          stageOf.set(event.runId, event.job.stageId);
          say("▶️ ", `run ${event.runId} in progress: stage ${event.job.stageId} (${event.job.kind})`);
          return;
        case "job.finished": {
          const stage = stageOf.get(event.runId) ?? "?";
          if (event.job === "publish") {
            const sha = event.outputs["published"] ?? "";
            say("⬆️ ", sha ? `published ${stage} at ${sha.slice(0, 7)}` : `nothing published for ${stage}`);
            return;
          }
          void readChecks(event.outputs["result_path"]).then((checks) => {
            const list = checks.map((c) => `${c.passed ? "✓" : "✗"} ${c.name}`).join(", ");
            say(
              "🧪",
              `${stage}: ${event.outputs["outcome"] ?? "no outcome"}${list ? ` — acceptance ${list}` : ""}`,
            );
          });
          return;
        }
        case "run.completed":
          say("🏁", `run ${event.runId} (${event.stageId}) completed: ${event.conclusion}`);
          return;
      }
    },
    watch(emulator) {
      timer = setInterval(() => {
        describeRequests(emulator.requests);
        describeHeartbeats(emulator);
      }, 200);
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}

async function readChecks(resultPath: string | undefined): Promise<CheckLine[]> {
  if (!resultPath) return [];
  try {
    const result = JSON.parse(await readFile(resultPath, "utf8")) as { checks?: CheckLine[] };
    return result.checks ?? [];
  } catch (error) {
    return error instanceof Error ? [] : [];
  }
}
