import type { StageResult } from "../../../src/artifacts/stage-result.ts";

/** Job summaries are capped at 1 MiB per step; stay well below. */
export const MAX_SUMMARY_CHARS = 200_000;

const ICON: Record<StageResult["outcome"], string> = {
  completed: "✅",
  "completed-with-failures": "❌",
  "needs-handoff": "🔁",
  crashed: "💥",
  hung: "⏸️",
  "timed-out": "⏱️",
  cancelled: "🛑",
};

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ").slice(0, 200);
}

function fence(text: string): string {
  const ticks = "`".repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${ticks}text\n${text}\n${ticks}`;
}

/** The job summary of a stage run: outcome, checks, commits, usage, failing output, handoff. */
export function renderJobSummary(result: StageResult): string {
  const lines = [
    `## ${ICON[result.outcome]} loom: \`${result.stage_id}\` ${result.outcome}`,
    "",
    `${cell(result.reason)}`,
    "",
    `Plan \`${result.plan_id}\`, ${result.kind} session, attempt ${result.attempt}. ` +
      `${result.turns} turns, $${result.cost_usd.toFixed(4)}, context ${result.context_percent.toFixed(1)} %, ` +
      `${Math.round(result.duration_ms / 1000)} s. Head \`${result.head_sha.slice(0, 12)}\`.`,
    "",
  ];
  if (result.continued?.mode === "resumed")
    lines.push(
      `Continued (\`/loom continue\`): resumed Claude Code's session of run ${result.continued.from_run_id}.`,
      "",
    );
  else if (result.continued?.mode === "handoff")
    lines.push(
      `Continued (\`/loom continue\`) from run ${result.continued.from_run_id} with a handoff prompt: ${cell(result.continued.reason ?? "")}.`,
      "",
    );
  if (result.dispute !== undefined)
    lines.push(
      `⚖️ **The session disputes acceptance criterion ${result.dispute.criterion_index + 1}** (\`${cell(result.dispute.criterion).replaceAll("`", "'")}\`): ${cell(result.dispute.reason)}. The stage waits for a person: \`/loom amend\` or \`/loom reject\` on the pull request.`,
      "",
    );
  if (result.kind === "check")
    lines.push("A check run (`/loom amend`): no session ran; the checks ran with the amended criteria.", "");
  if (result.isolation?.mode === "none")
    lines.push(
      `⚠️ **Not isolated**: the session and the checks ran as the runner's own user and could read its tokens (${cell(result.isolation.reason)}).`,
      "",
    );
  else if (result.isolation?.mode === "user")
    lines.push(`The session and the checks ran as the separate user \`${cell(result.isolation.user)}\`.`, "");
  lines.push(...renderNetwork(result));
  if (result.checks.length > 0) {
    lines.push("| | check | kind | time |", "|---|---|---|---|");
    for (const c of result.checks)
      lines.push(
        `| ${!c.passed ? "❌" : c.warned === true ? "⚠️" : "✅"} | ${cell(c.name)} | ${c.kind} | ${(c.duration_ms / 1000).toFixed(1)} s |`,
      );
    lines.push("");
  } else lines.push("_No checks declared._", "");
  for (const c of result.checks.filter((check) => !check.passed || check.warned === true).slice(0, 10))
    lines.push(
      `<details><summary>${c.passed ? "⚠️" : "❌"} ${cell(c.name)}</summary>\n\n${fence(c.output_tail)}\n\n</details>`,
      "",
    );
  lines.push(result.commits.length === 0 ? "_No commits._" : "### Commits", "");
  for (const commit of result.commits.slice(0, 100))
    lines.push(`- \`${commit.sha.slice(0, 12)}\` ${cell(commit.subject)}`);
  if (result.permission_denials.length > 0)
    lines.push(
      "",
      "### Refused tool uses",
      "",
      ...result.permission_denials.slice(0, 20).map((d) => `- ${cell(d)}`),
    );
  if (result.deviations.length > 0)
    lines.push("", "### Deviations", "", ...result.deviations.slice(0, 20).map((d) => `- ${cell(d)}`));
  if (result.learnings_given !== undefined && result.learnings_given.length > 0)
    lines.push(
      "",
      "### Learnings given",
      "",
      ...result.learnings_given.map((l) => `- ${cell(l.summary)} (\`${l.id}\`)`),
    );
  if (result.learnings !== undefined) {
    const { accepted, rejected } = result.learnings;
    lines.push("", "### Learnings", "");
    if (accepted.length === 0 && rejected.length === 0) lines.push("_The session recorded no learnings._");
    for (const l of accepted.slice(0, 20)) lines.push(`- ✅ **${l.category}**: ${cell(l.summary)}`);
    for (const r of rejected.slice(0, 50))
      lines.push(
        `- ❌ line ${r.line}${r.summary === undefined ? "" : ` (${cell(r.summary)})`}: ${cell(r.reason)}`,
      );
    if (accepted.length > 0)
      lines.push(
        "",
        "_Accepted learnings are committed to `doc/loom/knowledge/learnings/` by the publish job._",
      );
  }
  if (result.handoff !== undefined)
    lines.push("", `<details><summary>Handoff</summary>\n\n${result.handoff}\n\n</details>`);
  const text = `${lines.join("\n")}\n`;
  return text.length <= MAX_SUMMARY_CHARS ? text : `${text.slice(0, MAX_SUMMARY_CHARS)}\n\n… (cut)\n`;
}

/** The network sandbox: what it allowed and every host it blocked, or why it was not enforced. */
function renderNetwork(result: StageResult): string[] {
  const network = result.network;
  const code = (text: string): string => `\`${cell(text).replaceAll("`", "'")}\``;
  if (network === undefined) return [];
  const allow = network.allow.map((d) => code(d)).join(", ");
  if (network.mode === "advisory")
    return [
      `⚠️ **Network sandbox not enforced** (${cell(network.reason ?? "")}): the session was told to keep to ${allow}.`,
      "",
    ];
  const blocked = network.blocked.map(
    (b) =>
      `- Blocked by the sandbox: ${code(`${b.host}:${b.port}`)}${b.count > 1 ? ` (${b.count} times)` : ""}${b.command === undefined ? "" : `, by ${code(b.command)}`}`,
  );
  const more = network.more_blocked > 0 ? [`- and ${network.more_blocked} more hosts`] : [];
  return [`The session and the checks could reach only ${allow}.`, ...blocked, ...more, ""];
}
