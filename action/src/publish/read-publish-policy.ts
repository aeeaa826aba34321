import { parse } from "yaml";
import { z } from "zod";

/**
 * What the plan lets a stage's publish job accept. Each flag may be set on the plan
 * (`loom: { allow_workflow_changes: true }`) or on one stage (a stage's own value wins).
 * Read from the plan as the stage branch holds it on origin before publishing, never from the
 * bundle; and the session may not change any plan file (rule `plan-change`).
 */
export const POLICY_FLAGS = [
  "allow_workflow_changes",
  "allow_agent_config_changes",
  "allow_knowledge_edits",
] as const;
export type PolicyFlag = (typeof POLICY_FLAGS)[number];
export type PublishPolicy = Record<PolicyFlag, boolean>;

export type PolicyRead = { policy: PublishPolicy; problem: string | null };

export const STRICT_POLICY: PublishPolicy = {
  allow_workflow_changes: false,
  allow_agent_config_changes: false,
  allow_knowledge_edits: false,
};

const Flags = z.object({
  allow_workflow_changes: z.boolean().optional(),
  allow_agent_config_changes: z.boolean().optional(),
  allow_knowledge_edits: z.boolean().optional(),
});

const Metadata = z.object({
  loom: Flags.extend({ stages: z.array(Flags.extend({ id: z.unknown() }).loose()).default([]) }).loose(),
});

/** The yaml inside the plan's `<!-- loom METADATA` block, or null. */
export function extractMetadataYaml(planText: string): string | null {
  const start = planText.indexOf("<!-- loom METADATA");
  if (start === -1) return null;
  const end = planText.indexOf("<!-- END loom METADATA", start);
  if (end === -1) return null;
  const block = planText.slice(start, end);
  const fence = /^(`{3,})[ \t]*yaml[ \t]*\r?\n([\s\S]*?)^\1[ \t]*$/m.exec(block);
  return fence?.[2] ?? null;
}

/** The policy for one stage; anything unreadable means nothing extra is allowed. */
export function readPublishPolicy(planText: string | null, stageId: string): PolicyRead {
  const strict = (problem: string): PolicyRead => ({ policy: STRICT_POLICY, problem });
  if (planText === null) return strict("the plan file was not found on the stage branch");
  const yamlText = extractMetadataYaml(planText);
  if (yamlText === null) return strict("the plan has no loom METADATA yaml block");
  let data: unknown;
  try {
    data = parse(yamlText, { maxAliasCount: 100 });
  } catch (error) {
    return strict(`the plan's METADATA yaml does not parse: ${String(error).slice(0, 200)}`);
  }
  const parsed = Metadata.safeParse(data);
  if (!parsed.success) return strict("the plan's loom METADATA does not have the expected shape");
  const { loom } = parsed.data;
  const stage = loom.stages.find((candidate) => candidate.id === stageId);
  const pick = (flag: PolicyFlag): boolean => stage?.[flag] ?? loom[flag] ?? false;
  return {
    policy: {
      allow_workflow_changes: pick("allow_workflow_changes"),
      allow_agent_config_changes: pick("allow_agent_config_changes"),
      allow_knowledge_edits: pick("allow_knowledge_edits"),
    },
    problem: stage === undefined ? `stage ${stageId} is not in the plan` : null,
  };
}
