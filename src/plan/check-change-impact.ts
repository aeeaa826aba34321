import { compilePatterns } from "../stage/find-new-failures.ts";
import type { Diagnostics } from "./diagnostics.ts";
import { ChangeImpactConfig } from "./plan.ts";
import type { YamlLocator } from "./yaml-locator.ts";

/**
 * Warnings (the reference accepts these plans) where `change_impact` cannot do what it says: a
 * failure pattern this side cannot compile fails the check under `policy: fail`, and without
 * failure patterns no line is ever a failure.
 */
export function checkChangeImpact(value: unknown, at: YamlLocator, report: Diagnostics): void {
  // A `change_impact` of the wrong shape was reported by the schema already.
  const parsed = ChangeImpactConfig.safeParse(value);
  if (!parsed.success) return;
  const config = parsed.data;
  if (config.policy === "skip") return;
  const patterns = config.failure_patterns ?? [];
  if (patterns.length === 0) {
    report.warning(
      "change_impact has no failure_patterns: loom runs the baseline and compare commands but no output line counts as a failure, so the stage never fails on its impact",
      at.key(["loom", "change_impact"]),
    );
    return;
  }
  patterns.forEach((pattern, i) => {
    const compiled = compilePatterns([pattern]);
    if (compiled.ok) return;
    report.warning(
      `change_impact ${compiled.problem}: the change-impact check ${config.policy === "warn" ? "warns" : "fails"} until it is fixed`,
      at.value(["loom", "change_impact", "failure_patterns", i]),
    );
  });
}
