import type { TemplateToken } from "@actions/workflow-parser/templates/tokens/template-token";
import { evaluateExpression, evaluateToken, toText, toTextMap, type Scope } from "./evaluate-template.ts";
import type { JobLog } from "./job-log.ts";
import type { Permissions } from "./job-permissions.ts";
import type { ResolvedAction } from "./resolve-uses.ts";
import type { RunContext } from "./run-context.ts";
import { runStandIn } from "./run-stand-in.ts";
import { runStepProcess, type JobEffects, type StepLimits, type StepRun } from "./run-step-process.ts";
import type { StepProcess } from "./step-process.ts";

/** What the steps of one job share: its workspace, runner files, log, effects and cancellation. */
export type StepHost = {
  workspace: string;
  filesDir: string;
  log: JobLog;
  effects: JobEffects;
  register: (step: StepProcess) => () => void;
  permissions: Permissions;
};

export type ActionStep = {
  /** Its `main`, or (at the job's end) its `post` with the state `main` saved. */
  run(which: "main" | "post", state: Record<string, string>, limits: StepLimits): Promise<StepRun>;
  hasPost: boolean;
};

/**
 * A `uses:` step as the runner prepares it: the action resolved (loom's JavaScript action from where
 * `uses:` points, a first-party action's stand-in), its inputs = the action's declared defaults
 * (evaluated, e.g. `${{ github.token }}`) overridden by `with:`, given as `INPUT_<NAME>`, with the
 * GITHUB_ACTION* variables and, for `post`, what `main` saved as `STATE_<name>`.
 */
export async function prepareActionStep(
  ctx: RunContext,
  host: StepHost,
  input: {
    uses: string;
    with: TemplateToken | undefined;
    scope: Scope;
    env: Record<string, string>;
    stepId: string;
  },
): Promise<ActionStep> {
  const { parser } = ctx.loaded;
  const action = await ctx.resolver.resolveAction(input.uses);
  const given = input.with ? toTextMap(evaluateToken(parser, input.with, input.scope)) : {};
  const inputs = { ...defaultInputs(action, input.scope), ...given };
  const env = {
    ...input.env,
    GITHUB_ACTION: input.stepId,
    GITHUB_ACTION_REPOSITORY: input.uses.split("@")[0] ?? "",
    GITHUB_ACTION_REF: input.uses.split("@")[1] ?? "",
  };
  return {
    hasPost: action.kind === "node" ? action.post !== null : action.standIn.post !== undefined,
    run: (which, state, limits) =>
      action.kind === "stand-in"
        ? runStandIn(ctx, action.standIn, which, { ...host, inputs, env, state })
        : runStepProcess({
            command: process.execPath,
            args: which === "main" ? action.main : (action.post ?? []),
            env: {
              ...env,
              GITHUB_ACTION_PATH: action.dir,
              ...inputEnv(inputs),
              ...Object.fromEntries(Object.entries(state).map(([k, v]) => [`STATE_${k}`, v])),
            },
            cwd: host.workspace,
            filesDir: host.filesDir,
            log: host.log,
            effects: host.effects,
            limits,
            register: host.register,
          }),
  };
}

/** An action's declared defaults; one like `${{ github.token }}` is evaluated as the runner does. */
function defaultInputs(action: ResolvedAction, scope: Scope): Record<string, string> {
  const declared = action.kind === "node" ? Object.fromEntries(action.inputs) : action.standIn.inputs;
  return Object.fromEntries(
    Object.entries(declared).map(([name, value]) => [
      name,
      value.replace(/\$\{\{([\s\S]*?)\}\}/g, (_m, expression: string) =>
        toText(evaluateExpression(expression.trim(), scope)),
      ),
    ]),
  );
}

/** `INPUT_<NAME>` as the runner names them (spaces to `_`, upper case). */
function inputEnv(inputs: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(inputs).map(([name, value]) => [`INPUT_${name.replace(/ /g, "_").toUpperCase()}`, value]),
  );
}
