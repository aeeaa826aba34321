import type { StageState } from "../orchestrator/state.ts";
import { escapeCell } from "./format-status.ts";

/**
 * The stage's network sandbox on its check run, from its latest session that had one: every host
 * the sandbox refused (`Blocked by the sandbox: host:port`, how often, the command that asked), the
 * way a firewall's blocks are listed; or that the sandbox was advisory and why. A limited session
 * that was refused nothing shows one line with its allowlist.
 */
export function renderStageNetwork(stage: StageState): string[] {
  const session = stage.sessions.findLast((s) => s.report?.network !== undefined);
  const network = session?.report?.network;
  if (session === undefined || network === undefined) return [];
  const allow = network.allow.map((d) => `\`${escapeCell(d, 100)}\``).join(", ");
  const notes = network.notes.map((n) => `- ${escapeCell(n, 300)}`);
  if (network.mode === "advisory")
    return [
      "### Network sandbox",
      "",
      `Not enforced on this runner (\`session.sandbox: advisory\`): ${escapeCell(network.reason ?? "", 400)}. The session was told to keep to ${allow}.`,
      ...notes,
    ];
  const blocked = network.blocked.map((b) => {
    const times = b.count === 1 ? "" : ` (${b.count} times)`;
    const by = b.command === undefined ? "" : `, by \`${escapeCell(b.command, 200)}\``;
    return `- Blocked by the sandbox: \`${escapeCell(b.host, 255)}:${b.port}\`${times}${by}`;
  });
  const more = network.moreBlocked > 0 ? [`- and ${network.moreBlocked} more hosts`] : [];
  const total = network.blocked.length + network.moreBlocked;
  return [
    total === 0 ? "### Network sandbox" : `### Network sandbox: ${total} blocked`,
    "",
    `Attempt ${session.attempt}: the session and its checks could reach only ${allow}.`,
    ...(total === 0 ? [] : ["", ...blocked, ...more]),
    ...(notes.length === 0 ? [] : ["", ...notes]),
  ];
}
