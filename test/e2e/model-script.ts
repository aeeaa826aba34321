import path from "node:path";
import type { FakeTurn } from "../support/fake-model-server.ts";
import type { ModelScript, StageJob } from "./runner/create-stage-runner.ts";

/**
 * Scripted sessions for the end-to-end runs: what the model "does" in a stage, as real tool calls
 * Claude Code executes in the job's checkout.
 */

export type StageScript = (job: StageJob) => FakeTurn[];

const done: FakeTurn = { blocks: [{ type: "text", text: "Done." }] };

/** Writes new files (the runner commits what the session leaves). */
export function writeFiles(files: Record<string, string>): StageScript {
  return (job) => [
    ...Object.entries(files).map(([file, content]): FakeTurn => ({
      blocks: [
        { type: "tool_use", name: "Write", input: { file_path: path.join(job.workspace, file), content } },
      ],
    })),
    done,
  ];
}

/** Replaces an existing file (Claude Code wants a Read before it overwrites). */
export function rewriteFile(file: string, content: string): StageScript {
  return (job) => [
    { blocks: [{ type: "tool_use", name: "Read", input: { file_path: path.join(job.workspace, file) } }] },
    {
      blocks: [
        { type: "tool_use", name: "Write", input: { file_path: path.join(job.workspace, file), content } },
      ],
    },
    done,
  ];
}

/** A merge session: the action started the merge; resolve `file` and commit the merge. */
export function resolveConflict(file: string, content: string): StageScript {
  return (job) => [
    ...rewriteFile(file, content)(job).slice(0, 2),
    {
      blocks: [
        {
          type: "tool_use",
          name: "Bash",
          input: {
            command: `git add -- ${file} && git commit --no-edit -q`,
            description: "Commit the merge",
          },
        },
      ],
    },
    done,
  ];
}

/** A session that stays busy for `seconds` (one Bash `sleep`): long enough to be cancelled mid-run. */
export function stayBusy(seconds: number): StageScript {
  return () => [
    {
      blocks: [
        {
          type: "tool_use",
          name: "Bash",
          input: { command: `sleep ${seconds}`, description: "Wait", timeout: (seconds + 60) * 1000 },
        },
      ],
    },
    done,
  ];
}

/** Chains scripts in one session. */
export function inSequence(...scripts: StageScript[]): StageScript {
  return (job) => {
    const turns = scripts.flatMap((script) => script(job).filter((turn) => turn !== done));
    return [...turns, done];
  };
}

/**
 * A model script per stage: `scripts[stageId]` for stage and recovery sessions,
 * `scripts["<stageId>:merge"]` for merge sessions, `scripts["<stageId>:<attempt>"]` for one attempt.
 * An unscripted session only answers "Done.".
 */
export function scriptStages(scripts: Record<string, StageScript>): ModelScript {
  return (job) => {
    const script =
      scripts[`${job.stageId}:${job.kind === "merge" ? "merge" : job.attempt}`] ??
      (job.kind === "merge" ? undefined : scripts[job.stageId]);
    return { turns: script ? script(job) : [done] };
  };
}

/** A plan file in the reference CLI's format. */
export function planText(name: string, stagesYaml: string): string {
  const indented = stagesYaml
    .trim()
    .split("\n")
    .map((line) => `    ${line}`);
  return [
    `# Plan: ${name}`,
    "",
    "Prose for people stays outside the metadata.",
    "",
    "<!-- loom METADATA -->",
    "",
    "```yaml",
    "loom:",
    "  version: 1",
    "  stages:",
    ...indented,
    "```",
    "",
    "<!-- END loom METADATA -->",
    "",
  ].join("\n");
}
