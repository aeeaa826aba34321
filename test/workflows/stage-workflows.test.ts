import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { after, describe, it } from "node:test";
import { STAGE_OUTCOMES } from "../../src/artifacts/stage-result.ts";
import { evaluateExpression } from "./executor/evaluate-template.ts";
import { readWorkflowTokens } from "./workflow-tokens.ts";
import {
  DISPATCH_INPUTS,
  loadAction,
  loadWorkflow,
  read,
  ROOT,
  STAGE,
  STAGE_OIDC,
  type JobYaml,
  type StepYaml,
} from "./workflow-yaml.ts";

const action = loadAction();
const FORWARDED = [
  "model",
  "allowed-tools",
  "silence-timeout-minutes",
  "check-timeout-minutes",
  "max-budget-usd",
  "max-turns",
];
const session = (job: JobYaml | undefined): StepYaml => {
  const step = job?.steps.find((s) => s.with?.mode === "run");
  assert.ok(step !== undefined, "the run job has the session step");
  return step;
};
const expressionOf = (input: string): string => `\${{ inputs.${input} }}`;

for (const path of [STAGE, STAGE_OIDC]) {
  const name = basename(path);
  const workflow = loadWorkflow(path);
  const call = workflow.on.workflow_call;
  const { run, publish } = workflow.jobs;

  describe(`${name}`, () => {
    it("takes the request, the runner, the time limit, setup and the session settings", () => {
      assert.equal(call.inputs.request?.type, "string");
      assert.equal(call.inputs.request?.required, true);
      for (const input of ["runs-on", "timeout-minutes", "setup", "provider", ...FORWARDED])
        assert.ok(input in call.inputs, `${input} is an input`);
      assert.equal(call.inputs["runs-on"]?.default, "ubuntu-latest");
      assert.deepEqual(workflow.permissions, {}, "nothing by default; each job asks for its own");
    });

    it("forwards every session setting to the action, whose input exists", () => {
      const step = session(run);
      for (const input of [...FORWARDED, "provider"]) {
        const actionInput = input.replaceAll("-", "_");
        assert.ok(actionInput in action.inputs, `the action has ${actionInput}`);
        assert.equal(step.with?.[actionInput], expressionOf(input), `${input} → ${actionInput}`);
      }
      for (const key of Object.keys(step.with ?? {}))
        assert.ok(key === "mode" || key in action.inputs, `${key} is an action input`);
      for (const input of Object.keys(call.inputs)) {
        const used = JSON.stringify(workflow.jobs).includes(`inputs.${input}`);
        assert.ok(used, `the workflow input ${input} is used`);
      }
    });

    it("reads only the dispatch inputs from the request", () => {
      const used = [...read(path).matchAll(/fromJSON\(inputs\.request\)\.(\w+)/g)].map((m) => m[1]);
      assert.ok(used.length > 0);
      for (const field of used)
        assert.ok(DISPATCH_INPUTS.includes(field ?? ""), `${field} is a dispatch input`);
    });

    it("runs both jobs on the caller's runner with the caller's time limit for the session", () => {
      assert.equal(run?.["runs-on"], publish?.["runs-on"]);
      assert.equal(run?.["timeout-minutes"], expressionOf("timeout-minutes"));
    });

    it("wires the outputs outcome, cost-usd and turns from the session step's action outputs", () => {
      const wired: Record<string, string> = {};
      for (const [output, { value }] of Object.entries(call.outputs)) {
        const job = /^\$\{\{ jobs\.run\.outputs\.([\w-]+) \}\}$/.exec(value)?.[1] ?? "";
        const step =
          /^\$\{\{ steps\.session\.outputs\.(\w+) \}\}$/.exec(run?.outputs?.[job] ?? "")?.[1] ?? "";
        assert.ok(step in action.outputs, `${output} ← run.${job} ← session.${step}, declared by the action`);
        wired[output] = step;
      }
      assert.deepEqual(wired, { outcome: "outcome", "cost-usd": "cost_usd", turns: "turns" });
      assert.equal(session(run).id, "session");
      for (const outcome of STAGE_OUTCOMES) {
        assert.ok(
          call.outputs.outcome?.description?.includes(outcome),
          `the workflow's outcome names ${outcome}`,
        );
        assert.ok(
          action.outputs.outcome?.description.includes(outcome),
          `the action's outcome names ${outcome}`,
        );
      }
    });

    it("installs Claude Code, then runs the caller's setup, before the session; publish has no model", () => {
      const steps = run?.steps ?? [];
      const index = (match: (s: StepYaml) => boolean): number => steps.findIndex(match);
      const install = index((s) => (s.run ?? "").includes("@anthropic-ai/claude-code@"));
      const setup = index((s) => s.env?.LOOM_SETUP !== undefined);
      const login = index((s) => /^(aws-actions|google-github-actions)\//.test(s.uses ?? ""));
      const start = index((s) => s.with?.mode === "run");
      assert.ok(install >= 0 && install < setup && setup < start, "install → setup → session");
      if (login >= 0) assert.ok(setup < login && login < start, "setup never sees cloud credentials");
      assert.deepEqual(publish?.needs, "run");
      assert.deepEqual(publish?.permissions, { contents: "write", checks: "write" });
      assert.ok(!/ANTHROPIC|OAUTH|aws-actions|google-github-actions/.test(JSON.stringify(publish)));
    });

    it("gives the model credentials to the session step only", () => {
      const secrets = Object.keys(call.secrets ?? {});
      for (const secret of secrets) {
        assert.equal(call.secrets?.[secret]?.required, false, `${secret} is optional (the provider picks)`);
        assert.equal(session(run).env?.[secret], `\${{ secrets.${secret} }}`);
        const elsewhere = (run?.steps ?? []).filter(
          (s) => s !== session(run) && JSON.stringify(s).includes(secret),
        );
        assert.deepEqual(elsewhere, [], `${secret} reaches no other step`);
      }
      assert.deepEqual(
        secrets.sort(),
        name === "loom-stage.yml" ? ["ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"] : [],
      );
    });
  });
}

describe("id-token: write only on the OIDC path", () => {
  it("only loom-stage-oidc.yml's run job asks for it; loom-stage.yml works for a caller that grants none", () => {
    for (const path of [STAGE, STAGE_OIDC]) {
      const workflow = loadWorkflow(path);
      for (const [job, value] of Object.entries(workflow.jobs)) {
        const expected = path === STAGE_OIDC && job === "run" ? "write" : undefined;
        assert.equal(value.permissions["id-token"], expected, `${basename(path)} ${job}`);
      }
    }
    const code = read(STAGE)
      .split("\n")
      .filter((line) => !line.trimStart().startsWith("#"));
    assert.ok(!code.some((line) => line.includes("id-token")), "not even in a skipped job");
  });

  it("logs in to AWS or Google only for its own provider, with actions pinned by full SHA", () => {
    const steps = loadWorkflow(STAGE_OIDC).jobs.run?.steps ?? [];
    const aws = steps.find((s) => (s.uses ?? "").startsWith("aws-actions/configure-aws-credentials@"));
    const gcp = steps.find((s) => (s.uses ?? "").startsWith("google-github-actions/auth@"));
    assert.equal(aws?.if, "${{ inputs.provider == 'bedrock' }}");
    assert.equal(gcp?.if, "${{ inputs.provider == 'vertex' }}");
    for (const step of [aws, gcp]) assert.match(step?.uses ?? "", /@[0-9a-f]{40}$/);
    const preflight = steps.findIndex((s) => s.with?.mode === "preflight");
    assert.ok(preflight >= 0 && preflight < steps.indexOf(aws ?? {}), "inputs checked before any login");
  });

  it("hands the provider endpoints (aws-bedrock-base-url, gcp-vertex-base-url) to the preflight and the session", () => {
    const workflow = loadWorkflow(STAGE_OIDC);
    const steps = workflow.jobs.run?.steps ?? [];
    for (const mode of ["preflight", "run"]) {
      const step = steps.find((s) => s.with?.mode === mode);
      for (const input of ["aws-bedrock-base-url", "gcp-vertex-base-url"]) {
        assert.equal(workflow.on.workflow_call.inputs[input]?.default, "");
        assert.equal(step?.with?.[input.replaceAll("-", "_")], expressionOf(input), `${mode}: ${input}`);
      }
    }
  });

  it("the two stage workflows stay in step apart from the provider parts", () => {
    const plain = loadWorkflow(STAGE);
    const oidc = loadWorkflow(STAGE_OIDC);
    assert.deepEqual(oidc.jobs.publish, plain.jobs.publish);
    assert.deepEqual(oidc.on.workflow_call.outputs, plain.on.workflow_call.outputs);
    const common = (step: StepYaml): boolean =>
      step.with?.mode !== "preflight" && !/^(aws-actions|google-github-actions)\//.test(step.uses ?? "");
    const strip = (step: StepYaml): StepYaml => {
      const { env: _env, with: given, ...rest } = step;
      return step.with?.mode === "run"
        ? {
            ...rest,
            with: Object.fromEntries(Object.entries(given ?? {}).filter(([k]) => !/^(aws|gcp)_/.test(k))),
          }
        : step;
    };
    assert.deepEqual(oidc.jobs.run?.steps.filter(common).map(strip), plain.jobs.run?.steps.map(strip));
    const { "id-token": idToken, ...permissions } = oidc.jobs.run?.permissions ?? {};
    assert.equal(idToken, "write");
    assert.deepEqual(permissions, plain.jobs.run?.permissions);
    for (const input of Object.keys(plain.on.workflow_call.inputs))
      assert.ok(input in oidc.on.workflow_call.inputs, `${input} is an input of both`);
  });
});

describe("runs-on takes a label or JSON (the workflow's own expression, GitHub's engine)", () => {
  const runsOn = async (value: string) =>
    (await readWorkflowTokens(STAGE)).evaluateJobKey("run", "runs-on", { inputs: { "runs-on": value } });

  it("a single label or an ARC scale set name stays a string", async () => {
    assert.equal(await runsOn("ubuntu-latest"), "ubuntu-latest");
    assert.equal(await runsOn("arc-runner-set"), "arc-runner-set");
  });

  it("a JSON list becomes a list of labels, a JSON object a runner group", async () => {
    assert.deepEqual(await runsOn('["self-hosted","linux","x64"]'), ["self-hosted", "linux", "x64"]);
    assert.deepEqual(await runsOn('{"group":"larger","labels":["linux"]}'), {
      group: "larger",
      labels: ["linux"],
    });
  });

  it("evaluates as GitHub does: operands returned, short-circuit, unknown names refused", () => {
    const scope = (inputs: Record<string, string>) => ({ contexts: { inputs } });
    assert.equal(evaluateExpression("'' || 'b'", scope({})), "b");
    assert.equal(evaluateExpression("'a' && 'b'", scope({})), "b");
    assert.equal(evaluateExpression("startsWith('x', '[') && fromJSON('not json') || 'x'", scope({})), "x");
    assert.equal(evaluateExpression("inputs.p == 'BEDROCK'", scope({ p: "bedrock" })), true);
    assert.throws(() => evaluateExpression("secrets.nope", scope({})), /Unrecognized named-value/);
    assert.throws(() => evaluateExpression("nope('a')", scope({})), /Unrecognized function/);
  });
});

describe("the setup step runs the caller's commands from a file with bash -e", () => {
  const step = loadWorkflow(STAGE).jobs.run?.steps.find((s) => s.env?.LOOM_SETUP !== undefined);
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const runSetup = (script: string) => {
    const dir = mkdtempSync(join(tmpdir(), "loom-setup-"));
    dirs.push(dir);
    const run = spawnSync("bash", ["-e", "-c", step?.run ?? "exit 99"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", RUNNER_TEMP: dir, LOOM_SETUP: script },
      encoding: "utf8",
    });
    return { ...run, dir };
  };

  it("gets the script through env only and is skipped when setup is empty", () => {
    assert.equal(step?.env?.LOOM_SETUP, expressionOf("setup"));
    assert.equal(step?.if, "${{ inputs.setup != '' }}");
    assert.ok(!(step?.run ?? "").includes("${{"));
  });

  it("runs quotes and substitutions as written, never as part of the step's own text", () => {
    const run = runSetup(`echo "it's $(echo ok)" > out.txt\nprintf '%s' '\${{ x }}' >> out.txt`);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync(join(run.dir, "out.txt"), "utf8"), "it's ok\n${{ x }}");
  });

  it("stops at the first failing command and fails the step", () => {
    const run = runSetup("false\ntouch reached.txt");
    assert.notEqual(run.status, 0);
    assert.equal(spawnSync("test", ["-e", join(run.dir, "reached.txt")]).status, 1);
  });
});

it("the action declares every output it sets, and sets every output it declares", () => {
  const main = readFileSync(join(ROOT, "action", "src", "main.ts"), "utf8");
  const set = [...main.matchAll(/setOutput\("(\w+)"/g)].map((m) => m[1] ?? "");
  assert.deepEqual([...new Set(set)].sort(), Object.keys(action.outputs).sort());
  for (const output of ["outcome", "cost_usd", "turns"]) assert.ok(output in action.outputs);
});
