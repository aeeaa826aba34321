import { PLAN_LIMITS } from "../src/plan/plan.ts";
import type { PlanResult } from "../src/plan/plan.ts";
import { parsePlan } from "../src/plan/parse-plan.ts";
import type { CliIo } from "./cli-io.ts";
import { UsageError } from "./cli-command.ts";

/** Reads and parses a plan file; an unreadable path is a usage error (exit 2). */
export async function loadPlan(path: string, io: CliIo): Promise<PlanResult> {
  const read = await io.readText(path, PLAN_LIMITS.maxBytes);
  if (!read.ok) throw new UsageError(`cannot read ${path}: ${read.reason}`, { showUsage: false });
  return parsePlan(path, read.text);
}
