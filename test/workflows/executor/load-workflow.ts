import type { WorkflowTemplate } from "@actions/workflow-parser";
import type { MappingToken } from "@actions/workflow-parser/templates/tokens/mapping-token";
import type { TemplateToken } from "@actions/workflow-parser/templates/tokens/template-token";
import { loadWorkflowParser, type WorkflowParser } from "./load-workflow-parser.ts";
import type { UsesResolver } from "./resolve-uses.ts";

/** GitHub refuses the run when it loads it (invalid workflow, permissions): it fails at startup. */
export class StartupFailure extends Error {
  override name = "StartupFailure";
}

/**
 * A run's workflow as GitHub loads it: parsed and converted by `@actions/workflow-parser` (jobs with
 * `needs`, `if:` normalised, called workflows fetched and checked against their `workflow_call`
 * inputs and secrets), plus each file's token tree for what the conversion leaves out (a step's
 * `with:`, a job's `permissions:` and `timeout-minutes`).
 */
export type LoadedWorkflow = {
  parser: WorkflowParser;
  template: WorkflowTemplate;
  /** The token tree of the run's own file and of every called workflow, by `uses:` reference. */
  roots: Map<string, MappingToken>;
  file: string;
};

export async function loadWorkflow(
  file: string,
  content: string,
  resolver: UsesResolver,
): Promise<LoadedWorkflow> {
  const parser = await loadWorkflowParser();
  const trace = new parser.NoOperationTraceWriter();
  const roots = new Map<string, MappingToken>();
  const parse = (name: string, text: string) => {
    const parsed = parser.parseWorkflow({ name, content: text }, trace);
    const errors = parsed.context.errors.getErrors();
    if (errors.length > 0 || !parsed.value || !parser.isMapping(parsed.value))
      throw new StartupFailure(`Invalid workflow file: ${name}\n${errors.map((e) => e.message).join("\n")}`);
    roots.set(name, parsed.value);
    return parsed;
  };
  const parsed = parse(file, content);
  // The converter swallows a provider's error ("Unable to find reusable workflow"): keep ours.
  const fetchErrors: Error[] = [];
  const template = await parser.convertWorkflowTemplate(
    parsed.context,
    parsed.value as TemplateToken,
    {
      async getFileContent(ref) {
        const uses = "owner" in ref ? `${ref.owner}/${ref.repository}/${ref.path}@${ref.version}` : ref.path;
        try {
          const text = await resolver.readWorkflow(uses);
          parse(uses, text);
          return { name: uses, content: text };
        } catch (error) {
          fetchErrors.push(error as Error);
          throw error;
        }
      },
    },
    { fetchReusableWorkflowDepth: 1 },
  );
  if (fetchErrors[0]) throw fetchErrors[0];
  if (template.errors && template.errors.length > 0)
    throw new StartupFailure(
      `Invalid workflow file: ${file}\n${template.errors.map((e) => e.Message).join("\n")}`,
    );
  return { parser, template, roots, file };
}

/** `key:` of a mapping token (exact, as written). */
export function findKey(
  mapping: TemplateToken | undefined,
  key: string,
  parser: WorkflowParser,
): TemplateToken | undefined {
  return mapping && parser.isMapping(mapping) ? mapping.find(key) : undefined;
}

/** A job's mapping in a file's token tree. */
export function findJobToken(loaded: LoadedWorkflow, fileKey: string, jobId: string): MappingToken {
  const root = loaded.roots.get(fileKey);
  const job = findKey(findKey(root, "jobs", loaded.parser), jobId, loaded.parser);
  if (!job || !loaded.parser.isMapping(job)) throw new Error(`no job ${jobId} in ${fileKey}`);
  return job;
}

/** The step mappings of a job's token tree, in order (the converted steps are in the same order). */
export function listStepTokens(loaded: LoadedWorkflow, job: MappingToken): MappingToken[] {
  const steps = findKey(job, "steps", loaded.parser);
  if (!steps || !loaded.parser.isSequence(steps)) return [];
  const tokens: MappingToken[] = [];
  for (const step of steps) if (loaded.parser.isMapping(step)) tokens.push(step);
  return tokens;
}
