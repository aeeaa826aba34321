import { parse } from "yaml";
import { z } from "zod";

/** The caller the App dispatches when `.github/loom.yml` names none. */
export const DEFAULT_CALLER_WORKFLOW = "loom.yml";

const CallerKey = z.object({ workflow: z.string().regex(/^[\w.-]+\.ya?ml$/) }).loose();

/**
 * The file names in `.github/workflows/` of loom's caller workflows, from `.github/loom.yml` as
 * the stage branch holds it before publishing (null: no such file). Always includes `loom.yml`;
 * an unreadable file adds nothing (the callers are also found by what they contain).
 */
export function readCallerWorkflows(configText: string | null): string[] {
  const names = new Set([DEFAULT_CALLER_WORKFLOW]);
  if (configText === null) return [...names];
  try {
    const parsed = CallerKey.safeParse(parse(configText, { maxAliasCount: 100 }));
    if (parsed.success) names.add(parsed.data.workflow);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
  }
  return [...names];
}
