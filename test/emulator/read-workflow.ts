import { parse } from "yaml";
import type { RepoRecord } from "./emulator-state.ts";

export type WorkflowInput = { required: boolean; default?: string };

export type Workflow = {
  path: string;
  name: string;
  runName: string | null;
  dispatchable: boolean;
  inputs: Map<string, WorkflowInput>;
};

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readTriggers(on: unknown): Json {
  if (typeof on === "string") return { [on]: null };
  if (Array.isArray(on)) return Object.fromEntries(on.map((name) => [String(name), null]));
  return isObject(on) ? on : {};
}

/** The workflow file at `ref` (name, run-name, dispatch inputs); null when missing or not YAML. */
export async function readWorkflow(repo: RepoRecord, ref: string, path: string): Promise<Workflow | null> {
  const bytes = await repo.git.readBlob(ref, path);
  if (bytes === null) return null;
  let document: unknown;
  try {
    document = parse(bytes.toString("utf8"));
  } catch (error) {
    throw new Error(`the workflow ${path} at ${ref} is not valid YAML`, { cause: error });
  }
  if (!isObject(document)) return null;
  // YAML 1.1 reads a bare `on:` key as `true`; the yaml package (1.2) keeps "on".
  const triggers = readTriggers(document["on"] ?? document["true"]);
  const dispatch = triggers["workflow_dispatch"];
  const inputs = new Map<string, WorkflowInput>();
  const declared = isObject(dispatch) && isObject(dispatch["inputs"]) ? dispatch["inputs"] : {};
  for (const [name, spec] of Object.entries(declared)) {
    const input: WorkflowInput = { required: isObject(spec) && spec["required"] === true };
    if (isObject(spec) && spec["default"] !== undefined)
      input.default = typeof spec["default"] === "string" ? spec["default"] : JSON.stringify(spec["default"]);
    inputs.set(name, input);
  }
  return {
    path,
    name: typeof document["name"] === "string" ? document["name"] : path,
    runName: typeof document["run-name"] === "string" ? document["run-name"] : null,
    dispatchable: "workflow_dispatch" in triggers,
    inputs,
  };
}

/** Renders `${{ inputs.x }}`, `${{ github.event.inputs.x }}`, `${{ github.actor }}`, `${{ github.ref_name }}`; anything else becomes "". */
export function renderRunName(
  template: string,
  context: { inputs: Record<string, string>; actor: string; refName: string; workflow: string },
): string {
  return template.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_match, expression: string) => {
    const input = /^(?:github\.event\.)?inputs\.([\w-]+)$/.exec(expression);
    if (input?.[1]) return context.inputs[input[1]] ?? "";
    if (expression === "github.actor" || expression === "github.triggering_actor") return context.actor;
    if (expression === "github.ref_name") return context.refName;
    if (expression === "github.workflow") return context.workflow;
    if (expression === "github.event_name") return "workflow_dispatch";
    return "";
  });
}
