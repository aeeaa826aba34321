import { describeDomainProblem } from "./describe-domain-problem.ts";
import { describeGlobProblem } from "./describe-glob-problem.ts";
import type { Diagnostics } from "./diagnostics.ts";
import { SandboxConfig } from "./sandbox-config.ts";
import type { YamlLocator, YamlPath } from "./yaml-locator.ts";

const GLOB_LISTS = ["deny_read", "deny_write", "allow_write"] as const;
const DOMAIN_LISTS = ["allowed_domains", "additional_domains"] as const;

/**
 * The reference's checks of a `sandbox` (plan-level at `["loom", "sandbox"]`, or a stage's): every
 * filesystem path is a glob its glob library accepts, every network domain a plain domain or
 * `*.` wildcard. Each bad entry is an error at its line. A sandbox of the wrong shape was already
 * reported by the schema and is skipped.
 */
export function checkSandboxConfig(
  value: unknown,
  path: YamlPath,
  at: YamlLocator,
  report: Diagnostics,
  stage?: string,
): void {
  const parsed = SandboxConfig.safeParse(value);
  if (!parsed.success) return;
  const label = stage === undefined ? "" : `stage "${stage}": `;
  const { filesystem, network } = parsed.data;
  for (const list of GLOB_LISTS) {
    filesystem?.[list]?.forEach((glob, i) => {
      const problem = describeGlobProblem(glob);
      if (problem === null) return;
      const message = `${label}invalid sandbox ${list} glob pattern ${JSON.stringify(glob)}: ${problem}`;
      report.error(message, at.value([...path, "filesystem", list, i]), stage);
    });
  }
  for (const list of DOMAIN_LISTS) {
    network?.[list]?.forEach((domain, i) => {
      const problem = describeDomainProblem(domain);
      if (problem === null) return;
      const message = `${label}invalid sandbox ${list.replace(/s$/, "")} ${JSON.stringify(domain)}: ${problem}`;
      report.error(message, at.value([...path, "network", list, i]), stage);
    });
  }
}
