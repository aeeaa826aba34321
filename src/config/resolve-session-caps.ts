import { DEFAULT_CAPS, NO_CAP } from "./default-caps.ts";
import type { CapSource, CapsInForce } from "./caps-in-force.ts";
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
  /** The action's `max_budget_usd` / `max_turns` inputs (the App cannot see them: `{}` there). */
  inputs: CapValues;
};

/** The caps in force, with notes on how they were reached (a cap lowered to the repository's ceiling). */
export type SessionCaps = CapsInForce & { notes: string[] };

const CAPS = [
  {
    key: "max_budget_usd",
    field: "maxBudgetUsd",
    fallback: DEFAULT_CAPS.sessionBudgetUsd,
    show: (v: number) => `$${v}`,
  },
  {
    key: "max_turns",
    field: "maxTurns",
    fallback: DEFAULT_CAPS.sessionTurns,
    show: (v: number) => `${v} turns`,
  },
] as const;

/**
 * The session's spend and turn caps: the stage's own, else the plan's, else the repository's
 * (`session:` in `.github/loom.yml`), else the action input, else loom's default, unless the
 * repository opts out with `none`. The repository's number is also a ceiling: whatever wins is
 * lowered to it, with a note saying so.
 */
export function resolveSessionCaps({ stage, plan, repoConfig, inputs }: SessionCapsInput): SessionCaps {
  const caps: SessionCaps = { from: { maxBudgetUsd: "default", maxTurns: "default" }, notes: [] };
  const repo = repoConfig?.session ?? {};
  for (const { key, field, fallback, show } of CAPS) {
    const own = repo[key];
    const ceiling = own === NO_CAP ? undefined : own;
    const chosen =
      pickFirst(key, [
        ["stage", stage],
        ["plan", plan],
        [".github/loom.yml", { [key]: ceiling }],
        ["action input", inputs],
      ]) ?? (own === NO_CAP ? null : { source: "default" as const, value: fallback });
    if (chosen === null) {
      caps.from[field] = "opted out";
    } else if (ceiling !== undefined && chosen.value > ceiling) {
      caps.notes.push(
        `${key}: the ${chosen.source} asks for ${show(chosen.value)}; .github/loom.yml allows at most ${show(ceiling)}, so ${show(ceiling)} applies`,
      );
      caps[field] = ceiling;
      caps.from[field] = ".github/loom.yml";
    } else {
      caps[field] = chosen.value;
      caps.from[field] = chosen.source;
    }
  }
  return caps;
}

function pickFirst(
  key: keyof CapValues,
  sources: readonly [CapSource, CapValues][],
): { source: CapSource; value: number } | undefined {
  for (const [source, values] of sources) {
    const value = values[key];
    if (value !== undefined) return { source, value };
  }
  return undefined;
}
