/**
 * The configuration reference (docs/configuration.md) for the stage workflows and the action, generated from
 * `.github/workflows/loom-stage.yml`, `.github/workflows/loom-stage-oidc.yml` and
 * `action/action.yml` (the files are the truth; a test fails when docs/configuration.md's copy between
 * `INPUTS_START` and `INPUTS_END` differs). Print it with `node scripts/print-inputs-table.ts`.
 */
import { z } from "zod";
import { parse } from "yaml";

export const INPUTS_START = "<!-- inputs:start -->";
export const INPUTS_END = "<!-- inputs:end -->";

const Described = z.object({ description: z.string().default("") });
const Input = Described.extend({ required: z.boolean().optional(), default: z.unknown().optional() });
const Workflow = z.object({
  on: z.object({
    workflow_call: z.object({
      inputs: z.record(z.string(), Input),
      secrets: z.record(z.string(), Input).nullish(),
      outputs: z.record(z.string(), Described),
    }),
  }),
});
const Action = z.object({ inputs: z.record(z.string(), Input), outputs: z.record(z.string(), Described) });

export type ReferenceSources = { stage: string; oidc: string; action: string };

/** One table cell: one line, `|` escaped, `<` written as an entity so `<pool>` is not read as HTML. */
const cell = (text: string): string =>
  text
    .replace(/\s*\n\s*/g, " ")
    .replaceAll("|", "\\|")
    .replaceAll("<", "&lt;")
    .trim();

function defaultOf(input: z.infer<typeof Input>): string {
  if (input.required === true) return "required";
  if (input.default === undefined || input.default === "") return "";
  const value = typeof input.default === "string" ? input.default : JSON.stringify(input.default);
  return `\`${cell(value)}\``;
}

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");
}

/** The markdown between the markers (markers excluded). */
export function renderInputsTables(sources: ReferenceSources): string {
  const stage = Workflow.parse(parse(sources.stage)).on.workflow_call;
  const oidc = Workflow.parse(parse(sources.oidc)).on.workflow_call;
  const action = Action.parse(parse(sources.action));
  const where = (name: string): string =>
    name in stage.inputs ? (name in oidc.inputs ? "both" : "`loom-stage.yml`") : "`loom-stage-oidc.yml`";
  const inputNames = [...new Set([...Object.keys(stage.inputs), ...Object.keys(oidc.inputs)])];
  const inputRows = inputNames.map((name) => {
    const input = stage.inputs[name] ?? oidc.inputs[name] ?? { description: "" };
    return [`\`${name}\``, where(name), defaultOf(input), cell(input.description)];
  });
  const secrets = Object.entries(stage.secrets ?? {}).map(([name, secret]) => [
    `\`${name}\``,
    cell(secret.description),
  ]);
  const outputs = Object.entries(stage.outputs).map(([name, output]) => [
    `\`${name}\``,
    cell(output.description),
  ]);
  const actionInputs = Object.entries(action.inputs).map(([name, input]) => [
    `\`${name}\``,
    defaultOf(input),
    cell(input.description),
  ]);
  const actionOutputs = Object.entries(action.outputs).map(([name, output]) => [
    `\`${name}\``,
    cell(output.description),
  ]);
  return [
    "",
    "Stage workflow inputs (`with:` in the caller; the OIDC providers use `loom-stage-oidc.yml`):",
    "",
    table(["input", "workflow", "default", "what it does"], inputRows),
    "",
    "Secrets (`loom-stage.yml` only; `loom-stage-oidc.yml` takes none):",
    "",
    table(["secret", "what it is"], secrets),
    "",
    "Outputs of both stage workflows (`needs.<job>.outputs.<name>` in the caller):",
    "",
    table(["output", "what it is"], outputs),
    "",
    "The action (`action/action.yml`, used by the stage workflows):",
    "",
    table(["input", "default", "what it does"], actionInputs),
    "",
    table(["output", "what it is"], actionOutputs),
    "",
  ].join("\n");
}

/** The copy between the markers in docs/configuration.md, or null when a marker is missing. */
export function readInputsTables(readme: string): string | null {
  const start = readme.indexOf(INPUTS_START);
  const end = readme.indexOf(INPUTS_END);
  if (start < 0 || end < start) return null;
  return readme.slice(start + INPUTS_START.length, end);
}
