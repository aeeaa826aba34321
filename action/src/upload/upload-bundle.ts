import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  BUNDLE_ARTIFACT,
  BUNDLE_FILE,
  BUNDLE_MANIFEST_FILE,
  BundleManifest,
} from "../../../src/artifacts/publish-result.ts";
import { createBundle } from "../git/create-bundle.ts";
import { findSecretsInCommits } from "../git/find-secrets-in-commits.ts";
import type { RunStageInputs } from "../run-stage-inputs.ts";
import type { UploadArtifact } from "./artifact-port.ts";

type BundleDeps = {
  workspace: string;
  tempDir: string;
  knownSecrets: readonly string[];
  uploadArtifact: UploadArtifact;
  log: (message: string, data?: Record<string, unknown>) => void;
};

/**
 * The session's commits since `startSha` as a git bundle with its manifest, for the publish job.
 * Commits holding one of the job's own secrets (plain or encoded) never leave the job: the
 * manifest names where they are (commit, file, encoding; not the value) and carries no bundle,
 * and the publish job refuses with a stage error.
 */
export async function uploadBundle(
  inputs: RunStageInputs,
  deps: BundleDeps,
  startSha: string,
  head: string,
): Promise<void> {
  const dir = path.join(deps.tempDir, "bundle");
  await mkdir(dir, { recursive: true });
  const secrets = await findSecretsInCommits(deps.workspace, { startSha, head }, deps.knownSecrets);
  if (secrets.length > 0)
    deps.log("the session's commits hold one of the job's secrets: they are not uploaded", {
      found: secrets.map(
        (s) =>
          `${s.commit.slice(0, 12)} ${s.where}${s.path === undefined ? "" : ` ${s.path}`} (${s.encoding})`,
      ),
    });
  const bundle =
    secrets.length > 0
      ? { created: false as const }
      : await createBundle(deps.workspace, {
          branch: inputs.branch,
          startSha,
          file: path.join(dir, BUNDLE_FILE),
        });
  const manifest = BundleManifest.parse({
    version: 1,
    plan_id: inputs.plan_id,
    stage_id: inputs.stage_id,
    attempt: inputs.attempt,
    branch: inputs.branch,
    base_sha: startSha,
    head_sha: head,
    bundle: bundle.created ? BUNDLE_FILE : null,
    ...(secrets.length > 0 ? { secrets } : {}),
  });
  const manifestFile = path.join(dir, BUNDLE_MANIFEST_FILE);
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  await deps.uploadArtifact(
    BUNDLE_ARTIFACT,
    bundle.created ? [manifestFile, bundle.file] : [manifestFile],
    dir,
  );
}
