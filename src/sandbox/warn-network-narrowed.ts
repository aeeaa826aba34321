import type { LoomConfig } from "../config/loom-config.ts";
import { extractMetadata } from "../plan/extract-metadata.ts";
import { createLineIndex } from "../plan/line-index.ts";
import { readYamlDocument } from "../plan/parse-metadata-yaml.ts";
import type { Diagnostic, Location, Plan } from "../plan/plan.ts";
import type { NetworkConfig } from "../plan/sandbox-config.ts";
import { createYamlLocator, type YamlPath } from "../plan/yaml-locator.ts";
import { intersectDomains } from "./resolve-network-policy.ts";

/**
 * Warnings at the plan's lines for what `.github/loom.yml`'s `session.network.allow` takes away:
 * each `sandbox.network` (the plan's, a stage's) whose hosts the repository does not allow or
 * narrows, and a `sandbox.enabled: false` that cannot lift the repository's allowlist. Nothing
 * without `session.network.allow`. `text` is the plan file, for the lines.
 */
export function warnNetworkNarrowed(
  text: string,
  plan: Pick<Plan, "metadata" | "stages">,
  config: Pick<LoomConfig, "session"> | null,
): Diagnostic[] {
  const repo = config?.session?.network?.allow;
  if (repo === undefined) return [];
  const locate = createLocate(text);
  const out: Diagnostic[] = [];
  const check = (network: NetworkConfig | undefined, path: YamlPath, stage?: string): void => {
    if (network === undefined) return;
    const notes: string[] = [];
    intersectDomains(
      [...(network.allowed_domains ?? []), ...(network.additional_domains ?? [])],
      repo,
      notes,
    );
    for (const note of notes)
      out.push({
        message: `${stage === undefined ? "" : `stage "${stage}": `}${note}`,
        ...locate([...path, "network"]),
        ...(stage === undefined ? {} : { stage }),
      });
  };
  const lift = (enabled: boolean | undefined, path: YamlPath, stage?: string): void => {
    if (enabled !== false) return;
    out.push({
      message: `${stage === undefined ? "" : `stage "${stage}": `}\`sandbox.enabled: false\` does not lift .github/loom.yml's \`session.network.allow\`: the session still reaches only ${repo.join(", ")} and the model provider`,
      ...locate([...path, "enabled"]),
      ...(stage === undefined ? {} : { stage }),
    });
  };
  check(plan.metadata.sandbox?.network, ["loom", "sandbox"]);
  lift(plan.metadata.sandbox?.enabled, ["loom", "sandbox"]);
  plan.stages.forEach((stage, index) => {
    check(stage.sandbox?.network, ["loom", "stages", index, "sandbox"], stage.id);
    lift(stage.sandbox?.enabled, ["loom", "stages", index, "sandbox"], stage.id);
  });
  return out;
}

/** Where a yaml path's key is in the plan file (line 1 when the file cannot be read for places). */
function createLocate(text: string): (path: YamlPath) => Location {
  const block = extractMetadata(text);
  const read = block.ok ? readYamlDocument(block.yaml) : null;
  if (!block.ok || read === null) return () => ({ line: 1, column: 1 });
  const locator = createYamlLocator(read.doc, block.yamlOffset, createLineIndex(text));
  return (path) => locator.key(path);
}
