import type { LoomConfig } from "../config/loom-config.ts";
import type { LoomMetadata, Stage } from "../plan/plan.ts";
import type { NetworkConfig } from "../plan/sandbox-config.ts";
import { coversDomain, normalizeDomain } from "./match-domain.ts";

/**
 * The network a stage session may reach. `open`: no sandbox asks for a limit. `limited`: the
 * session's traffic goes through loom's egress proxy, which lets through only `allow` (always
 * including the model provider's hosts) and records every other host it refuses.
 */
export type NetworkPolicy =
  | { kind: "open" }
  | {
      kind: "limited";
      /** Domain patterns the proxy lets through, provider hosts included. */
      allow: string[];
      /** Where the list comes from, for logs and the check run. */
      from: "plan" | ".github/loom.yml" | "plan within .github/loom.yml";
      /** What was declared but not granted, each with the reason (shown to the user). */
      notes: string[];
    };

export type NetworkPolicyInput = {
  plan: Pick<LoomMetadata, "sandbox">;
  stage: Pick<Stage, "sandbox" | "id">;
  /** `.github/loom.yml` from the trusted ref, or null. */
  repoConfig: Pick<LoomConfig, "session"> | null;
  /** The hosts the session's model provider needs (`api.anthropic.com`, a gateway's host…). */
  providerHosts: readonly string[];
};

/**
 * The stage's network policy, as the reference merges a sandbox (a stage's `enabled` and
 * `network` win over the plan's; `allowed_domains` and `additional_domains` both allow) and the
 * repository bounds it: with `session.network.allow` in `.github/loom.yml` every session is
 * limited to that list, and a plan's list is intersected with it, never widening it. A plan
 * `sandbox` that is enabled (the reference's default) with no domains allows no host but the
 * provider's, as the reference's "empty means no network access".
 */
export function resolveNetworkPolicy(input: NetworkPolicyInput): NetworkPolicy {
  const planBox = input.plan.sandbox;
  const stageBox = input.stage.sandbox;
  const declared = planBox !== undefined || stageBox !== undefined;
  const enabled = declared && (stageBox?.enabled ?? planBox?.enabled ?? true);
  const repo = input.repoConfig?.session?.network?.allow;
  const notes: string[] = [];
  if (!enabled && repo === undefined) return { kind: "open" };
  const planList = enabled ? listDomains(stageBox?.network ?? planBox?.network) : undefined;
  if (declared && !enabled && repo !== undefined)
    notes.push(
      "the plan's `sandbox.enabled: false` does not lift .github/loom.yml's `session.network.allow`",
    );
  let allow: string[];
  let from: "plan" | ".github/loom.yml" | "plan within .github/loom.yml";
  if (planList !== undefined && repo !== undefined) {
    allow = intersectDomains(planList, repo, notes);
    from = "plan within .github/loom.yml";
  } else if (planList !== undefined) {
    allow = planList;
    from = "plan";
  } else {
    allow = (repo ?? []).map(normalizeDomain);
    from = ".github/loom.yml";
  }
  return {
    kind: "limited",
    allow: unique([...allow, ...input.providerHosts.map(normalizeDomain)]),
    from,
    notes,
  };
}

function listDomains(network: NetworkConfig | undefined): string[] {
  return unique(
    [...(network?.allowed_domains ?? []), ...(network?.additional_domains ?? [])].map(normalizeDomain),
  );
}

/**
 * The hosts both lists allow, as patterns: a plan pattern the repository's list covers is kept;
 * a wider plan pattern is narrowed to the repository's patterns it covers; a plan pattern that
 * shares no host with the repository's list is dropped with a note.
 */
export function intersectDomains(
  plan: readonly string[],
  repo: readonly string[],
  notes: string[],
): string[] {
  const out: string[] = [];
  for (const wanted of plan.map(normalizeDomain)) {
    if (repo.some((bound) => coversDomain(bound, wanted))) {
      out.push(wanted);
      continue;
    }
    const narrower = repo.map(normalizeDomain).filter((bound) => coversDomain(wanted, bound));
    if (narrower.length > 0) {
      out.push(...narrower);
      notes.push(
        `\`${wanted}\` is narrowed to ${narrower.map((d) => `\`${d}\``).join(", ")} by .github/loom.yml`,
      );
    } else
      notes.push(
        `\`${wanted}\` is not allowed: .github/loom.yml's \`session.network.allow\` does not include it`,
      );
  }
  return unique(out);
}

const unique = (list: readonly string[]): string[] => [...new Set(list)];
