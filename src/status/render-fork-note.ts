import { findForkBlocker } from "../orchestrator/fork-target.ts";
import type { PlanState } from "../orchestrator/state.ts";
import { escapeCell } from "./format-status.ts";

/**
 * For a plan from a fork: where its result lives. loom cannot push to the fork, so the stages
 * merge into `loom/pr-<n>/result/<plan-id>` in this repository, which the author merges into their
 * branch; and why the current head does not run, when that is the fork's doing (deleted, conflict).
 * Empty for other plans.
 */
export function renderForkNote(state: PlanState): string[] {
  const { fork } = state;
  if (!fork) return [];
  const from = fork.repo === null ? "a fork that was deleted" : `the fork \`${escapeCell(fork.repo, 200)}\``;
  const lines = [
    `> This plan comes from ${from}. loom cannot push there, and never writes to this repository's branch of the same name: its stages merge into \`${fork.target}\` in this repository. To take the result, merge that branch into your pull request's branch and push.`,
  ];
  const blocker = findForkBlocker(state);
  if (blocker !== null && (fork.repo === null || fork.problem?.sha === state.pr.headSha))
    lines.push(">", `> Not running: ${escapeCell(blocker, 600)}.`);
  return [...lines, ""];
}
