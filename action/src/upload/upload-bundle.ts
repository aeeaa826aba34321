import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  BUNDLE_ARTIFACT,
  BUNDLE_FILE,
  BUNDLE_MANIFEST_FILE,
  BundleManifest,
} from "../../../src/artifacts/publish-result.ts";
import { createBundle } from "../git/create-bundle.ts";
import type { RunStageInputs } from "../run-stage-inputs.ts";
import type { UploadArtifact } from "./artifact-port.ts";

/** The session's commits since `startSha` as a git bundle with its manifest, for the publish job. */
export async function uploadBundle(
  inputs: RunStageInputs,
  deps: { workspace: string; tempDir: string; uploadArtifact: UploadArtifact },
  startSha: string,
  head: string,
): Promise<void> {
  const dir = path.join(deps.tempDir, "bundle");
  await mkdir(dir, { recursive: true });
  const bundle = await createBundle(deps.workspace, {
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
  });
  const manifestFile = path.join(dir, BUNDLE_MANIFEST_FILE);
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  await deps.uploadArtifact(
    BUNDLE_ARTIFACT,
    bundle.created ? [manifestFile, bundle.file] : [manifestFile],
    dir,
  );
}
