import type { LoomConfig } from "./loom-config.ts";

/** A session's caps as they come from one source; every field may be missing. */
export type CapValues = { max_budget_usd?: number | undefined; max_turns?: number | undefined };

/** Where the caps come from. A plan's `Stage` and `LoomMetadata` fit `stage` and `plan` as they are. */
export type SessionCapsInput = {
  stage: CapValues;
  /** The plan-level settings (the `loom:` block). */
  plan: CapValues;
  /** `.github/loom.yml` from the trusted ref; null when there is none or it could not be used. */
  repoConfig: Pick<LoomConfig, "session"> | null;
  /** The action's `max_budget_usd` / `max_turns` inputs. */
  inputs: CapValues;
};

export type SessionCaps = { maxBudgetUsd?: number; maxTurns?: number; notes: string[] };

type CapKey = keyof CapValues;

const CAPS = [
  { key: "max_budget_usd", field: "maxBudgetUsd", show: (v: number) => `$${v}` },
  { key: "max_turns", field: "maxTurns", show: (v: number) => `${v} turns` },
] as const;

/**
 * The session's spend and turn caps: the stage's own, else the plan's, else the repository's
 * (`session:` in `.github/loom.yml`), else the action input. The repository's value is also a
 * ceiling: whatever wins is lowered to it, with a note saying so.
 */
export function resolveSessionCaps({ stage, plan, repoConfig, inputs }: SessionCapsInput): SessionCaps {
  const caps: SessionCaps = { notes: [] };
  const repo: CapValues = repoConfig?.session ?? {};
  for (const { key, field, show } of CAPS) {
    const chosen = pickFirst(key, [
      ["stage", stage],
      ["plan", plan],
      [".github/loom.yml", repo],
      ["action input", inputs],
    ]);
    if (chosen === undefined) continue;
    const ceiling = repo[key];
    if (ceiling !== undefined && chosen.value > ceiling) {
      caps.notes.push(
        `${key}: the ${chosen.source} asks for ${show(chosen.value)}; .github/loom.yml allows at most ${show(ceiling)}, so ${show(ceiling)} applies`,
      );
      caps[field] = ceiling;
    } else {
      caps[field] = chosen.value;
    }
  }
  return caps;
}

function pickFirst(
  key: CapKey,
  sources: readonly [string, CapValues][],
): { source: string; value: number } | undefined {
  for (const [source, values] of sources) {
    const value = values[key];
    if (value !== undefined) return { source, value };
  }
  return undefined;
}
