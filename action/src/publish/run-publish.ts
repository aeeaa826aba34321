import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import {
  BUNDLE_ARTIFACT,
  BUNDLE_MANIFEST_FILE,
  CARRIED_RESULT_FILE,
  PUBLISH_ARTIFACT,
  PUBLISH_RESULT_FILE,
  PublishResult,
} from "../../../src/artifacts/publish-result.ts";
import { formatResultCheckRun, type ResultCheckRun } from "../../../src/artifacts/result-check-run.ts";
import { StageResult } from "../../../src/artifacts/stage-result.ts";
import { planRunOf, type LearningUse } from "../../../src/knowledge/learning-use.ts";
import { redactSecrets } from "../../../src/redact/redact-secrets.ts";
import { RESULT_ARTIFACT, RESULT_FILE } from "../upload/artifact-port.ts";
import { publishBundle } from "./publish-bundle.ts";

export const PublishInputs = z.object({
  plan_path: z.string().min(1),
  plan_id: z.string().min(1),
  stage_id: z.string().min(1),
  /** Must be `loom/pr-<n>/<plan_id>/<stage_id>` (or loom 0.2's `loom/<plan_id>/<stage_id>`). */
  branch: z.string().min(1),
  /**
   * The merge point (the dispatch's `base`): a missing stage branch is created from a session that
   * started on it. Empty or absent (loom before 0.4): the stage branch must exist.
   */
  base: z.string().optional(),
});
export type PublishInputs = z.infer<typeof PublishInputs>;

export type PublishDeps = {
  /** Download the named artifact of this run and extract its files into `directory`. */
  downloadArtifact: (name: string, directory: string) => Promise<void>;
  /** Upload `files` (absolute paths inside `rootDirectory`) as the named artifact. */
  uploadArtifact: (name: string, files: string[], rootDirectory: string) => Promise<void>;
  log: (message: string) => void;
  /**
   * Create the `loom result` check run on `sha` with the job token (`checks: write`); absent when
   * the job has no token or run id. A failure is logged: the App then reads the artifact.
   */
  reportResult?: (check: ResultCheckRun, sha: string) => Promise<void>;
};

export type PublishOptions = {
  /** A clone of the repository whose `origin` this job may push to (the publish job's checkout). */
  workspace: string;
  /** An empty scratch directory for the downloaded bundle and the result. */
  tempDir: string;
  inputs: PublishInputs;
  /** Values to treat as secrets besides token patterns (e.g. the job's token). */
  knownSecrets: readonly string[];
  deps: PublishDeps;
  /** `GITHUB_RUN_ID`: the run the `loom result` check run speaks for. */
  runId?: number;
};

/**
 * The `publish` job: download `loom-bundle`, check it against the stage branch on origin and the
 * plan's rules, push it to the stage branch only when clean, and upload `loom-publish`.
 * Refusals are values in the result; only broken infrastructure (git missing, upload failing)
 * throws.
 */
export async function runPublish(options: PublishOptions): Promise<PublishResult> {
  const { deps, inputs, tempDir } = options;
  // Every line this job logs goes through here: the log is a way out like the artifacts.
  const redact = (text: string): string => redactSecrets(text, options.knownSecrets);
  const say = (message: string): void => deps.log(redact(message));
  const bundleDir = join(tempDir, BUNDLE_ARTIFACT);
  const resultDir = join(tempDir, PUBLISH_ARTIFACT);
  await mkdir(bundleDir, { recursive: true });
  await mkdir(resultDir, { recursive: true });

  const manifestText = await downloadManifest(options, bundleDir);
  const { learnings, use } = await downloadLearnings(options);
  const outcome = await publishBundle({
    cwd: options.workspace,
    bundleDir,
    manifestText,
    inputs,
    knownSecrets: options.knownSecrets,
    learnings,
    ...(use === undefined ? {} : { learningUse: use }),
    tempDir,
    log: say,
  });
  // A refused path is the session's choice of name, so it is redacted like the text around it.
  const result = PublishResult.parse({
    ...outcome,
    refusals: outcome.refusals.map((refusal) => ({
      ...refusal,
      ...(refusal.path === undefined ? {} : { path: redact(refusal.path) }),
      detail: redact(refusal.detail).slice(0, 2000),
    })),
  });

  for (const refusal of result.refusals) {
    say(
      `refused (${refusal.rule})${refusal.path === undefined ? "" : ` ${refusal.path}`}: ${refusal.detail}`,
    );
  }
  say(
    result.pushed_sha === undefined
      ? `nothing pushed to ${inputs.branch}`
      : `pushed ${result.pushed_sha} to ${inputs.branch}`,
  );
  const resultFile = join(resultDir, PUBLISH_RESULT_FILE);
  await writeFile(resultFile, `${JSON.stringify(result, null, 2)}\n`);
  const carried = await carryRunResult(options, resultDir);
  await deps.uploadArtifact(PUBLISH_ARTIFACT, [resultFile, ...carried], resultDir);
  await reportResult(options, result);
  return result;
}

/**
 * Once the stage's work is pushed, the run's outcome (the carried `loom-result` and this job's
 * result) as the `loom result` check run on the pushed commit: the App reads it from the webhook
 * instead of listing and downloading `loom-publish`. Last, after the artifact it stands for, so
 * the App never acts on a run whose artifact is missing. Redacted like every way out.
 */
async function reportResult(options: PublishOptions, result: PublishResult): Promise<void> {
  const { deps, runId } = options;
  if (deps.reportResult === undefined || runId === undefined || result.pushed_sha === undefined) return;
  let stageResult: StageResult;
  try {
    const text = await readFile(join(options.tempDir, RESULT_ARTIFACT, RESULT_FILE), "utf8");
    const parsed = StageResult.safeParse(JSON.parse(text));
    if (!parsed.success) return;
    stageResult = parsed.data;
  } catch {
    return;
  }
  if (stageResult.plan_id !== options.inputs.plan_id || stageResult.stage_id !== options.inputs.stage_id)
    return;
  const check = formatResultCheckRun({ version: 1, run_id: runId, result: stageResult, publish: result });
  if (check === null) {
    deps.log("the run's result is too long for a check run: loom reads it from loom-publish");
    return;
  }
  const redact = (text: string): string => redactSecrets(text, options.knownSecrets);
  try {
    await deps.reportResult(
      { ...check, title: redact(check.title), summary: redact(check.summary), text: redact(check.text) },
      result.pushed_sha,
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    deps.log(
      `could not create the ${check.name} check run (${redact(message).slice(0, 300)}): loom reads loom-publish instead`,
    );
  }
}

type ResultLearnings = { learnings: unknown[]; use?: LearningUse };

/**
 * The accepted learnings in the run's `loom-result`, for this plan and stage, and the record of
 * the learnings its session was given with its outcome; none when the artifact is missing or
 * unreadable (the publish job then pushes the bundle alone).
 */
async function downloadLearnings(options: PublishOptions): Promise<ResultLearnings> {
  const dir = join(options.tempDir, RESULT_ARTIFACT);
  try {
    await mkdir(dir, { recursive: true });
    await options.deps.downloadArtifact(RESULT_ARTIFACT, dir);
    const parsed = StageResult.safeParse(JSON.parse(await readFile(join(dir, RESULT_FILE), "utf8")));
    if (!parsed.success) {
      options.deps.log(`${RESULT_ARTIFACT} is not a valid result: no learnings to commit`);
      return { learnings: [] };
    }
    const result = parsed.data;
    if (result.plan_id !== options.inputs.plan_id || result.stage_id !== options.inputs.stage_id) {
      options.deps.log(`${RESULT_ARTIFACT} is for another stage: no learnings to commit`);
      return { learnings: [] };
    }
    const given = result.learnings_given ?? [];
    return {
      learnings: result.learnings?.accepted ?? [],
      ...(given.length === 0
        ? {}
        : {
            use: {
              version: 1,
              plan_run: planRunOf(options.inputs.branch, result.plan_id),
              plan_id: result.plan_id,
              stage_id: result.stage_id,
              attempt: result.attempt,
              kind: result.kind,
              outcome: result.outcome,
              recorded_at: new Date().toISOString(),
              given: given.map((l) => l.id),
            },
          }),
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    options.deps.log(
      `no ${RESULT_ARTIFACT} to read learnings from (${redactSecrets(message, options.knownSecrets).slice(0, 300)})`,
    );
    return { learnings: [] };
  }
}

/**
 * The run's `loom-result.json` as downloaded for its learnings, copied unchanged next to the publish
 * result (`CARRIED_RESULT_FILE`); none when the run left no result.
 */
async function carryRunResult(options: PublishOptions, resultDir: string): Promise<string[]> {
  const carried = join(resultDir, CARRIED_RESULT_FILE);
  try {
    await copyFile(join(options.tempDir, RESULT_ARTIFACT, RESULT_FILE), carried);
    return [carried];
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return [];
    throw error;
  }
}

async function downloadManifest(options: PublishOptions, bundleDir: string): Promise<string | Error> {
  try {
    await options.deps.downloadArtifact(BUNDLE_ARTIFACT, bundleDir);
    return await readFile(join(bundleDir, BUNDLE_MANIFEST_FILE), "utf8");
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
