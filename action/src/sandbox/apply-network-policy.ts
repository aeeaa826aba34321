import { isIP } from "node:net";
import type { NetworkRecord } from "../../../src/artifacts/stage-result.ts";
import { requiresSandbox, type LoomConfig } from "../../../src/config/loom-config.ts";
import type { LoomMetadata, Stage } from "../../../src/plan/plan.ts";
import { listProviderHosts } from "../../../src/sandbox/list-provider-hosts.ts";
import { resolveNetworkPolicy, type NetworkPolicy } from "../../../src/sandbox/resolve-network-policy.ts";
import type { LimitNetwork, NetworkLimit } from "./network-limit.ts";

type Env = Readonly<Record<string, string | undefined>>;
type Limited = Extract<NetworkPolicy, { kind: "limited" }>;

/** The stage's network as the action holds it. */
export type AppliedNetwork =
  | { kind: "open" }
  | { kind: "refused"; reason: string }
  | { kind: "limited"; policy: Limited; limit: NetworkLimit }
  | { kind: "advisory"; policy: Limited; reason: string };

/** Model endpoints given by address (`http://127.0.0.1:8080`): the egress rule lets them through directly too. */
function listDirectEndpoints(env: Env): { address: string; port: number }[] {
  return ["ANTHROPIC_BASE_URL", "ANTHROPIC_BEDROCK_BASE_URL", "ANTHROPIC_VERTEX_BASE_URL"].flatMap((name) => {
    const value = env[name];
    if (value === undefined || value === "") return [];
    try {
      const url = new URL(value);
      const address = url.hostname.replace(/^\[(.*)\]$/, "$1");
      if (isIP(address) === 0) return [];
      return [{ address, port: Number(url.port || (url.protocol === "https:" ? 443 : 80)) }];
    } catch {
      return [];
    }
  });
}

/**
 * Resolves the stage's network policy and puts it in force: open (no sandbox asks for a limit);
 * limited (the proxy and the egress rule hold the session user); advisory (this runner cannot
 * enforce it and `.github/loom.yml` says `session.sandbox: advisory`); or refused, with the
 * reason, when it cannot be enforced and the repository did not opt out.
 */
export async function applyNetworkPolicy(input: {
  plan: LoomMetadata;
  stage: Stage;
  repoConfig: Pick<LoomConfig, "session"> | null;
  sessionEnv: Env;
  limitNetwork: LimitNetwork | undefined;
}): Promise<AppliedNetwork> {
  const policy = resolveNetworkPolicy({
    plan: input.plan,
    stage: input.stage,
    repoConfig: input.repoConfig,
    providerHosts: listProviderHosts(input.sessionEnv),
  });
  if (policy.kind === "open") return policy;
  const network = input.stage.sandbox?.network ?? input.plan.sandbox?.network;
  const granted =
    input.limitNetwork === undefined
      ? ({ ok: false, reason: "this action cannot hold a session to a network rule" } as const)
      : await input.limitNetwork({
          allow: policy.allow,
          loopback: network?.allow_local_binding === true,
          direct: listDirectEndpoints(input.sessionEnv),
        });
  if (granted.ok) return { kind: "limited", policy, limit: granted.limit };
  if (!requiresSandbox(input.repoConfig))
    return { kind: "advisory", policy, reason: `not enforced: ${granted.reason}` };
  return {
    kind: "refused",
    reason:
      `not started: the stage's network sandbox (allowing ${policy.allow.join(", ")}) cannot be enforced on this runner: ` +
      `${granted.reason}. Run loom where the action is root or has passwordless sudo and iptables (GitHub-hosted ` +
      "runners have both), or accept an unenforced sandbox with `session: { sandbox: advisory }` in .github/loom.yml",
  };
}

/** What `loom-result` records of the network (none when it was open). */
export function recordNetwork(applied: AppliedNetwork): NetworkRecord | undefined {
  switch (applied.kind) {
    case "open":
    case "refused":
      return undefined;
    case "advisory":
      return {
        mode: "advisory",
        allow: applied.policy.allow,
        reason: applied.reason.slice(0, 1000),
        notes: applied.policy.notes,
        blocked: [],
        more_blocked: 0,
      };
    case "limited":
      return {
        mode: "limited",
        allow: applied.policy.allow,
        notes: applied.policy.notes,
        blocked: applied.limit.denials(),
        more_blocked: applied.limit.moreDenials(),
      };
  }
}
