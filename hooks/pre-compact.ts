import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describeToolUse, findToolPath, PreCompactInput } from "../src/artifacts/hook-input.ts";
import type { HookEnv } from "./hook-env.ts";
import { runHook, writeFileAtomic, type HookReply } from "./read-hook-input.ts";

const TRANSCRIPT_TAIL_BYTES = 2 * 1024 * 1024;

type ToolUse = { name: string; input: Record<string, unknown> };

/** Tool uses of the session so far, read from the transcript Claude Code keeps (JSON lines). */
export function readToolUses(transcriptPath: string | undefined): ToolUse[] {
  if (transcriptPath === undefined || !existsSync(transcriptPath)) return [];
  const text = readFileSync(transcriptPath, "utf8").slice(-TRANSCRIPT_TAIL_BYTES);
  const uses: ToolUse[] = [];
  for (const line of text.split("\n")) {
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch (error) {
      if (line.trim() !== "")
        process.stderr.write(`loom PreCompact hook: skipped a transcript line (${String(error)})\n`);
      continue;
    }
    const content = (entry as { message?: { content?: unknown } } | null)?.message?.content;
    if (!Array.isArray(content)) continue;
    for (const block of content as unknown[]) {
      const b = block as { type?: unknown; name?: unknown; input?: unknown } | null;
      if (b?.type === "tool_use" && typeof b.name === "string") {
        const input =
          typeof b.input === "object" && b.input !== null ? (b.input as Record<string, unknown>) : {};
        uses.push({ name: b.name, input });
      }
    }
  }
  return uses;
}

export function renderHandoffNotes(input: PreCompactInput, uses: readonly ToolUse[], now: Date): string {
  const files = [
    ...new Set(
      uses
        .filter((u) => u.name !== "Read")
        .map((u) => findToolPath(u.input))
        .filter((p) => p !== null),
    ),
  ];
  const recent = uses.slice(-15).map((u) => `- ${describeToolUse(u.name, u.input)}`);
  return [
    `Compaction (${input.trigger ?? "unknown"}) requested at ${now.toISOString()} in session ${input.session_id}.`,
    "",
    "Files written or edited so far:",
    ...(files.length === 0 ? ["- none"] : files.map((f) => `- ${f}`)),
    "",
    "Last tool uses:",
    ...(recent.length === 0 ? ["- none"] : recent),
    "",
  ].join("\n");
}

/** PreCompact: write handoff notes; block the first compaction so the agent can save its work, then allow. */
export function handlePreCompact(input: PreCompactInput, env: HookEnv, now: Date): HookReply {
  if (env.LOOM_HANDOFF_FILE !== undefined) {
    writeFileAtomic(
      env.LOOM_HANDOFF_FILE,
      renderHandoffNotes(input, readToolUses(input.transcript_path), now),
    );
  }
  if (env.LOOM_STATE_DIR === undefined) return { exitCode: 0 };
  const marker = join(env.LOOM_STATE_DIR, "pre-compact-blocked");
  if (existsSync(marker)) return { exitCode: 0 };
  writeFileAtomic(marker, `${now.toISOString()}\n`);
  return {
    exitCode: 2,
    stderr:
      "loom: the context is nearly full. Before it is compacted, commit the work you have finished " +
      "(git add + git commit with a message saying what and why) and note what remains; then carry on.\n",
  };
}

if (import.meta.main) await runHook("PreCompact", PreCompactInput, handlePreCompact);
