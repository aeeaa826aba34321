import { parse } from "yaml";
import { z } from "zod";
import { DEFAULT_RETIRE_POLICY, RetirePolicy } from "../../../src/knowledge/find-retired-learnings.ts";

const LearningsKey = z.object({ learnings: RetirePolicy.optional() }).loose();

export type ReadRetirePolicy = { policy: RetirePolicy; problem?: string };

/**
 * `learnings:` of `.github/loom.yml` as the stage branch holds it (sessions cannot change that
 * file: publish refuses it). No file or no key: the defaults. A key the App would refuse keeps the
 * defaults too, with the problem for the log (the App already failed the plan check run for it).
 */
export function readRetirePolicy(configText: string | null): ReadRetirePolicy {
  if (configText === null) return { policy: DEFAULT_RETIRE_POLICY };
  let raw: unknown;
  try {
    raw = parse(configText, { maxAliasCount: 100 });
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    return { policy: DEFAULT_RETIRE_POLICY, problem: ".github/loom.yml is not valid YAML" };
  }
  const parsed = LearningsKey.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      policy: DEFAULT_RETIRE_POLICY,
      problem: `.github/loom.yml ${issue?.path.join(".") ?? "learnings"}: ${issue?.message ?? "invalid"}`,
    };
  }
  return { policy: parsed.data.learnings ?? DEFAULT_RETIRE_POLICY };
}
