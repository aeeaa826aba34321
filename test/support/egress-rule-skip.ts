import { spawnSync } from "node:child_process";
import { isServiceRequired } from "../store/test-database.ts";

/**
 * Why this machine cannot hold the network sandbox's egress rule (root, iptables and ip6tables),
 * for a test's `skip`, or false when it can. Where the tests must run (`LOOM_REQUIRE_SANDBOX=1` or
 * `CI`, as `.ci/run` sets), a machine that cannot throws instead: the sandbox's tests never skip
 * silently in CI.
 */
export function egressRuleSkip(file: string): string | false {
  const reason = findReason();
  if (reason === null) return false;
  if (isServiceRequired("SANDBOX"))
    throw new Error(
      `${file}: the network sandbox's tests must run here (LOOM_REQUIRE_SANDBOX or CI is set): ${reason}`,
    );
  console.warn(`${file} skipped: ${reason}`);
  return reason;
}

function findReason(): string | null {
  if (process.getuid?.() !== 0) return "needs root (the action creates the session user and its egress rule)";
  for (const program of ["iptables", "ip6tables"])
    if (spawnSync(program, ["-w", "10", "-S", "OUTPUT"], { stdio: "ignore" }).status !== 0)
      return `needs ${program} (Debian: apt-get install iptables)`;
  return null;
}
