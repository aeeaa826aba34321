import type { AcceptanceCriterion } from "./plan.ts";

/** The shell command of an acceptance criterion (a string is its own command). */
export function criterionCommand(criterion: AcceptanceCriterion): string {
  return typeof criterion === "string" ? criterion : criterion.command;
}
