import { create } from "@actions/artifact-legacy";
import type { ArtifactReader, JobArtifacts } from "./artifact-port.ts";

/**
 * The artifact ports on GitHub Enterprise Server: `@actions/artifact` 1.x (the artifact API v3
 * that actions/upload-artifact@v3 uses, the one GHES serves), which talks to `ACTIONS_RUNTIME_URL`
 * (`_apis/pipelines/workflows/{run}/artifacts`) with the job's `ACTIONS_RUNTIME_TOKEN` and reads
 * `GITHUB_RUN_ID` itself. It uploads and downloads within the job's own run only (the publish
 * job downloads the run job's bundle this way); another run's artifacts come from `reader`
 * (the REST API).
 *
 * GHES facts this relies on: v3 artifacts reach the REST API (`…/actions/runs/{id}/artifacts`)
 * only after the run completes, never mid-run, so heartbeats uploaded while the session runs are
 * invisible to the App until then; v3 has no "already exists" (a second upload of a name adds to
 * the same artifact).
 */
export function createLegacyArtifactClient(options: {
  reader: ArtifactReader;
  retentionDays?: number;
}): JobArtifacts {
  const client = create();
  const retention = options.retentionDays === undefined ? {} : { retentionDays: options.retentionDays };
  return {
    upload: async (name, files, rootDirectory) => {
      // Without `continueOnError: false` the client reports failed files and resolves anyway.
      const response = await client.uploadArtifact(name, files, rootDirectory, {
        continueOnError: false,
        ...retention,
      });
      if (response.failedItems.length > 0)
        throw new Error(`the upload of artifact ${name} failed for ${response.failedItems.join(", ")}`);
    },
    reader: options.reader,
    download: async (name, directory) => {
      await client.downloadArtifact(name, directory, { createArtifactFolder: false });
    },
  };
}
