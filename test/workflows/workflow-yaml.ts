import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { MAIN_CONTRACT, STAGE_CONTRACTS } from "../../src/release/stage-contract.ts";

/** The shipped workflow files the tests read, and the shapes of the fields they look at. */
export const ROOT = join(import.meta.dirname, "..", "..");
export const STAGE = join(ROOT, ".github", "workflows", "loom-stage.yml");
export const STAGE_OIDC = join(ROOT, ".github", "workflows", "loom-stage-oidc.yml");
export const ACTION = join(ROOT, "action", "action.yml");
export const EXAMPLES = readdirSync(join(ROOT, "examples"))
  .filter((name) => /\.ya?ml$/.test(name))
  .map((name) => join(ROOT, "examples", name));

/** The inputs the app dispatches the caller with, all strings: its contract's. */
export const DISPATCH_INPUTS: string[] = [...STAGE_CONTRACTS[MAIN_CONTRACT].dispatchInputs];

export type StepYaml = {
  id?: string;
  name?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
};
export type JobYaml = {
  uses?: string;
  needs?: string;
  if?: string;
  "runs-on"?: string;
  "timeout-minutes"?: unknown;
  with?: Record<string, unknown>;
  secrets?: Record<string, string>;
  permissions: Record<string, string>;
  outputs?: Record<string, string>;
  steps: StepYaml[];
};
export type InputsYaml = Record<
  string,
  { type?: string; required?: boolean; default?: unknown; description?: string }
>;
export type WorkflowYaml = {
  name: string;
  "run-name": string;
  on: {
    workflow_dispatch: { inputs: InputsYaml };
    workflow_call: {
      inputs: InputsYaml;
      secrets?: Record<string, { required?: boolean; description?: string }>;
      outputs: Record<string, { value: string; description?: string }>;
    };
  };
  permissions?: unknown;
  jobs: Record<string, JobYaml>;
};
export type ActionYaml = {
  inputs: InputsYaml;
  outputs: Record<string, { description: string }>;
};

export const read = (path: string): string => readFileSync(path, "utf8");
/** Shipped files are checked field by field by the tests; the cast only names what they read. */
export const loadWorkflow = (path: string): WorkflowYaml => parse(read(path)) as WorkflowYaml;
export const loadAction = (): ActionYaml => parse(read(ACTION)) as ActionYaml;
