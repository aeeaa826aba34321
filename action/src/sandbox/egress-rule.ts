import type { HostRun } from "../isolation/run-host-command.ts";

/** Runs a program with the privileges iptables needs (as root, or through `sudo -n`). */
export type PrivilegedRun = (command: string, args: readonly string[]) => Promise<HostRun>;

export type EgressRule = {
  /** The chain loom creates for this session user (`loom-egress-<hash>`, at most 28 characters). */
  chain: string;
  uid: number;
  /** The egress proxy's port on 127.0.0.1: the only place the user's traffic may go. */
  proxyPort: number;
  /** Further loopback or IP-literal endpoints let through directly (a model gateway given by address). */
  direct: readonly { address: string; port: number }[];
  /** Let the user's loopback traffic through (`sandbox.network.allow_local_binding`). */
  loopback: boolean;
};

const FAMILIES = [
  { program: "iptables", loopback: "127.0.0.0/8", isV6: false },
  { program: "ip6tables", loopback: "::1/128", isV6: true },
] as const;

/** The chain name for a session user `loom-<hash>`. */
export function egressChainName(user: string): string {
  return `loom-egress-${user.replace(/^loom-/, "").slice(0, 16)}`;
}

const jump = (rule: Pick<EgressRule, "uid" | "chain">): string[] => [
  "OUTPUT",
  "-m",
  "owner",
  "--uid-owner",
  String(rule.uid),
  "-j",
  rule.chain,
];

/**
 * Installs the egress rule: in the filter table's OUTPUT chain (IPv4 and IPv6), packets of the
 * session user's uid, and only of that uid, jump to loom's own chain, which accepts the proxy's
 * port on 127.0.0.1 (and the `direct` endpoints) and rejects everything else. A rule left by an
 * earlier job of the same user is removed first. Returns null, or why it could not be installed
 * (then nothing of it is left).
 */
export async function installEgressRule(run: PrivilegedRun, rule: EgressRule): Promise<string | null> {
  await removeEgressRule(run, rule);
  for (const family of FAMILIES) {
    const accepts = [
      ...(family.isV6 ? [] : [["-d", "127.0.0.1/32", "-p", "tcp", "--dport", String(rule.proxyPort)]]),
      ...rule.direct
        .filter((endpoint) => endpoint.address.includes(":") === family.isV6)
        .map((endpoint) => ["-d", endpoint.address, "-p", "tcp", "--dport", String(endpoint.port)]),
      ...(rule.loopback ? [["-d", family.loopback]] : []),
    ];
    const steps: string[][] = [
      ["-N", rule.chain],
      ...accepts.map((match) => ["-A", rule.chain, ...match, "-j", "ACCEPT"]),
      ["-A", rule.chain, "-p", "tcp", "-j", "REJECT", "--reject-with", "tcp-reset"],
      ["-A", rule.chain, "-j", "REJECT"],
      ["-I", ...jump(rule)],
    ];
    for (const step of steps) {
      const done = await run(family.program, ["-w", "10", ...step]);
      if (done.code !== 0) {
        const problem = `${family.program} ${step.join(" ")}: ${done.stderr.trim().split("\n")[0] ?? `exit ${done.code}`}`;
        await removeEgressRule(run, rule);
        return problem;
      }
    }
  }
  return null;
}

/**
 * Removes what `installEgressRule` installed, for both families: every jump of this uid to the
 * chain, then the chain. Returns what could not be removed (an absent rule is no problem).
 */
export async function removeEgressRule(
  run: PrivilegedRun,
  rule: Pick<EgressRule, "chain" | "uid">,
): Promise<string[]> {
  const problems: string[] = [];
  for (const family of FAMILIES) {
    const exists = await run(family.program, ["-w", "10", "-S", rule.chain]);
    // Up to a few jumps: a crashed earlier job may have left more than one.
    for (let i = 0; i < 8; i += 1) {
      const gone = await run(family.program, ["-w", "10", "-D", ...jump(rule)]);
      if (gone.code !== 0) break;
    }
    if (exists.code !== 0) continue;
    for (const step of [
      ["-F", rule.chain],
      ["-X", rule.chain],
    ]) {
      const done = await run(family.program, ["-w", "10", ...step]);
      if (done.code !== 0) problems.push(`${family.program} ${step.join(" ")}: ${done.stderr.trim()}`);
    }
  }
  return problems;
}
