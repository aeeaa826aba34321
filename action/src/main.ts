import * as core from "@actions/core";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { listKnownSecretForms } from "../../src/redact/find-known-secrets.ts";
import { redactSecrets } from "../../src/redact/redact-secrets.ts";
import { abortOnSignals } from "./abort-on-signals.ts";
import { readRepoConfig, REPO_CONFIG_PATH } from "./config/read-repo-config.ts";
import { excludeFromGit } from "./git/exclude-from-git.ts";
import { createGitHubClient } from "./github/create-github-client.ts";
import { readContinueRecord } from "./github/read-continue-record.ts";
import { readAmendRecord } from "./github/read-amend-record.ts";
import { createSessionSandbox, disposeSessionSandbox } from "./isolation/create-session-sandbox.ts";
import { createNetworkLimiter } from "./sandbox/create-network-limiter.ts";
import { describeIsolation } from "./isolation/session-isolation.ts";
import { createArtifactDeps } from "./publish/create-artifact-deps.ts";
import { createResultReporter } from "./publish/create-result-reporter.ts";
import { PublishInputs, runPublish } from "./publish/run-publish.ts";
import { runStage } from "./run-stage.ts";
import { RunStageInputs } from "./run-stage-inputs.ts";
import type { HookPrograms } from "./session/hook-settings.ts";
import {
  checkCloudProviderInputs,
  CloudProviderInputs,
  isProviderVariable,
  listProviderSecrets,
  ProviderInputs,
  resolveProviderEnv,
} from "./session/provider-env.ts";
import { runSession } from "./session/run-session.ts";
import { createJobArtifacts } from "./upload/create-job-artifacts.ts";
import { loadPreviousSession } from "./upload/load-previous-session.ts";

type Env = Record<string, string | undefined>;

const RUN_INPUTS = [
  "plan_path",
  "plan_id",
  "stage_id",
  "attempt",
  "kind",
  "branch",
  "base",
  "key",
  "previous_run_id",
  "max_budget_usd",
  "max_turns",
  "silence_timeout_minutes",
  "context_budget_percent",
  "model",
  "claude_path",
  "check_timeout_minutes",
  "allowed_tools",
] as const;
const PROVIDER_INPUTS = [
  "provider",
  "aws_region",
  "gcp_project",
  "gcp_region",
  "aws_bedrock_base_url",
  "gcp_vertex_base_url",
] as const;
const CLOUD_INPUTS = [
  ...PROVIDER_INPUTS,
  "aws_role_arn",
  "gcp_workload_identity_provider",
  "gcp_service_account",
] as const;

/** Variables no child process of the action may see: inputs (the token), Actions runtime tokens. */
function isRunnerSecretName(name: string): boolean {
  return (
    name.startsWith("INPUT_") ||
    name.startsWith("ACTIONS_") ||
    name === "GITHUB_TOKEN" ||
    name === "GH_TOKEN" ||
    name === "GITHUB_STEP_SUMMARY_TOKEN"
  );
}

function pickEnv(env: Env, keep: (name: string) => boolean): Env {
  return Object.fromEntries(Object.entries(env).filter(([name]) => keep(name)));
}

/**
 * The environments of the action's children. Neither inherits the runner's tokens (inputs, Actions
 * runtime, GITHUB_TOKEN) nor any model provider's variables; the session gets exactly `providerEnv`
 * (the chosen provider's key or cloud credentials), the checks get no credentials at all.
 */
export function splitEnv(env: Env, providerEnv: Env): { sessionEnv: Env; checkEnv: Env } {
  const checkEnv: Env = {
    ...pickEnv(env, (name) => !isRunnerSecretName(name) && !isProviderVariable(name)),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
  };
  return { sessionEnv: { ...checkEnv, ...providerEnv }, checkEnv };
}

/**
 * The runner masks these values in the job log (`::add-mask::`), also as the encodings loom looks
 * for (base64 and base64url cores, percent, hex): a line printed before loom's own redaction is
 * masked too.
 */
function maskInLog(secrets: readonly string[]): void {
  for (const secret of secrets) core.setSecret(secret);
  for (const form of listKnownSecretForms(secrets)) core.setSecret(form);
}

function readInputs(names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, core.getInput(name)]));
}

/** loom's hook programs: next to the bundle (`dist/hooks/*.js`) or, unbundled, `hooks/*.ts`. */
function locateHooks(): HookPrograms | null {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const bundled = path.join(here, "hooks");
  if (existsSync(path.join(bundled, "stop.js")))
    return { dir: bundled, extension: "js", nodePath: process.execPath };
  const source = path.resolve(here, "../../hooks");
  if (existsSync(path.join(source, "stop.ts")))
    return { dir: source, extension: "ts", nodePath: process.execPath };
  return null;
}

async function runMode(env: Env): Promise<void> {
  // From here on a cancel (SIGINT, then SIGTERM) stops the session and still uploads loom-result.
  const cancel = abortOnSignals(process, (message) => core.info(message));
  try {
    await runModeUntilCancelled(env, cancel.signal);
  } finally {
    cancel.dispose();
  }
}

async function runModeUntilCancelled(env: Env, signal: AbortSignal): Promise<void> {
  const githubToken = core.getInput("github_token");
  const knownSecrets = [
    ...listProviderSecrets(env),
    githubToken,
    env.ACTIONS_RUNTIME_TOKEN ?? "",
    env.ACTIONS_ID_TOKEN_REQUEST_TOKEN ?? "",
  ].filter((value) => value !== "");
  maskInLog(knownSecrets);
  const parsed = RunStageInputs.safeParse(readInputs(RUN_INPUTS));
  if (!parsed.success) return core.setFailed(`loom: invalid inputs:\n${z.prettifyError(parsed.error)}`);
  const inputs = parsed.data;
  const providerInputs = ProviderInputs.safeParse(readInputs(PROVIDER_INPUTS));
  if (!providerInputs.success)
    return core.setFailed(`loom: invalid inputs:\n${z.prettifyError(providerInputs.error)}`);
  // Before anything runs: a missing key is a clear job error, not an auth failure deep in the log.
  const provider = resolveProviderEnv(providerInputs.data, env, existsSync);
  if (!provider.ok)
    return core.setFailed(`loom: the session cannot reach the model:\n${provider.problems.join("\n")}`);
  core.info(`loom: model provider ${provider.provider}`);
  const workspace = env.GITHUB_WORKSPACE ?? process.cwd();
  const tempDir = path.join(env.RUNNER_TEMP ?? tmpdir(), `loom-${inputs.stage_id}-${inputs.attempt}`);
  await mkdir(tempDir, { recursive: true });
  const hooks = locateHooks();
  if (hooks === null)
    core.warning("loom's hook programs were not found next to the action: running without hooks.");
  // The artifact API the server speaks: v4 on github.com and GHE.com, v3 on GHES.
  const artifacts = createJobArtifacts(env);
  const [owner = "", repo = ""] = (env.GITHUB_REPOSITORY ?? "").split("/");
  const redact = (text: string): string => redactSecrets(text, knownSecrets);
  const { sessionEnv, checkEnv } = splitEnv(env, provider.env);
  const credentialsFile = provider.env.GOOGLE_APPLICATION_CREDENTIALS;
  if (credentialsFile !== undefined && (await excludeFromGit(workspace, credentialsFile)))
    core.info(
      `loom: ${path.relative(workspace, credentialsFile)} (the Google credentials file) is kept out of the stage's commits`,
    );
  const sandbox = await createSessionSandbox(tempDir, env.RUNNER_TEMP ?? tmpdir());
  core.info(`loom: ${describeIsolation(sandbox.isolation)}`);
  const github = createGitHubClient({
    token: githubToken,
    apiUrl: env.GITHUB_API_URL ?? "https://api.github.com",
  });
  const log = (message: string, data?: Record<string, unknown>): void =>
    core.info(redact(data === undefined ? message : `${message} ${JSON.stringify(data)}`));
  const network = createNetworkLimiter(sandbox, { now: Date.now, log });
  const staged = runStage(inputs, {
    workspace,
    tempDir,
    sessionEnv,
    checkEnv,
    knownSecrets,
    hooks,
    sandbox,
    runSession,
    limitNetwork: network.limit,
    uploadArtifact: artifacts.upload,
    loadPrevious: (runId, options) =>
      loadPreviousSession(
        artifacts.reader,
        { runId, token: githubToken, owner, repo },
        path.join(tempDir, "previous"),
        options,
      ),
    readContinueRecord: () =>
      readContinueRecord({ github, owner, repo, branch: inputs.branch, key: inputs.key ?? "" }),
    readAmendRecord: () =>
      readAmendRecord({ github, owner, repo, branch: inputs.branch, key: inputs.key ?? "" }),
    writeSummary: async (markdown) => {
      await core.summary.addRaw(markdown).write();
    },
    // The dispatched commit (the default branch), not the checked-out stage branch.
    readRepoConfig: async () => {
      const read = await readRepoConfig({
        github,
        repository: env.GITHUB_REPOSITORY ?? "",
        ref: env.GITHUB_SHA ?? "",
      });
      if (read.ok && read.ignored !== undefined)
        core.warning(
          `loom: ${REPO_CONFIG_PATH} sets ${read.ignored.map((key) => `\`${key}\``).join(", ")}, which this stage workflow's release of loom does not know: ignored here (the App reads them); move the caller's pin to a newer release to use them in stage jobs`,
        );
      return read;
    },
    log,
    now: Date.now,
    signal,
  });
  // Whatever happened, the session user's processes end, then its egress rule goes (never while
  // one of them could still use the open network), and a user this job created goes.
  const { result, resultFile } = await staged.finally(async () => {
    try {
      for (const problem of await disposeSessionSandbox(sandbox)) core.warning(`loom: ${problem}`);
    } finally {
      for (const problem of await network.stop()) core.warning(`loom: ${problem}`);
    }
  });
  core.setOutput("outcome", result.outcome);
  core.setOutput("cost_usd", String(result.cost_usd));
  core.setOutput("turns", String(result.turns));
  core.setOutput("result_path", resultFile);
  // The outcome travels in loom-result; the job fails only when the action itself broke, so the
  // publish job still pushes a handoff's commits.
  core.info(`loom: ${result.outcome}: ${result.reason}`);
}

/**
 * `preflight` (loom-stage-oidc.yml, before the cloud login): the workflow inputs the chosen cloud
 * provider needs are all set, or the job fails naming each missing one.
 */
function preflightMode(): void {
  const parsed = CloudProviderInputs.safeParse(readInputs(CLOUD_INPUTS));
  if (!parsed.success) return core.setFailed(`loom: invalid inputs:\n${z.prettifyError(parsed.error)}`);
  const problems = checkCloudProviderInputs(parsed.data);
  if (problems.length > 0) return core.setFailed(`loom: ${problems.join("\n")}`);
  core.info(`loom: provider ${parsed.data.provider} is configured`);
}

async function publishMode(env: Env): Promise<void> {
  const githubToken = core.getInput("github_token");
  const knownSecrets = [githubToken, env.ACTIONS_RUNTIME_TOKEN ?? ""].filter((value) => value !== "");
  maskInLog(knownSecrets);
  const parsed = PublishInputs.safeParse(readInputs(["plan_path", "plan_id", "stage_id", "branch", "base"]));
  if (!parsed.success) return core.setFailed(`loom: invalid inputs:\n${z.prettifyError(parsed.error)}`);
  const inputs = parsed.data;
  const tempDir = path.join(env.RUNNER_TEMP ?? tmpdir(), `loom-publish-${inputs.stage_id}`);
  await mkdir(tempDir, { recursive: true });
  const result = await runPublish({
    workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
    tempDir,
    inputs,
    knownSecrets,
    deps: {
      ...createArtifactDeps(createJobArtifacts(env)),
      log: (message) => core.info(message),
      reportResult: createResultReporter(env, githubToken),
    },
    ...(Number(env.GITHUB_RUN_ID) > 0 ? { runId: Number(env.GITHUB_RUN_ID) } : {}),
  });
  core.setOutput("published", result.pushed_sha ?? "");
  if (!result.ok) core.setFailed(`loom publish refused: ${result.refusals.map((r) => r.rule).join(", ")}`);
}

/** The action's entry: `mode` `run` (default) runs a stage session, `publish` pushes its commits. */
export async function main(env: Env = process.env): Promise<void> {
  const mode = core.getInput("mode") || "run";
  try {
    if (mode === "run") await runMode(env);
    else if (mode === "publish") await publishMode(env);
    else if (mode === "preflight") preflightMode();
    else core.setFailed(`unknown mode ${JSON.stringify(mode)}: use "run" or "publish"`);
  } catch (error) {
    core.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    core.setFailed(`loom action failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
