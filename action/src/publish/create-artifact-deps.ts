import type { ArtifactClient } from "@actions/artifact";
import type { PublishDeps } from "./run-publish.ts";

/**
 * `runPublish`'s artifact port on `@actions/artifact` (this run's artifacts, through the
 * `ACTIONS_RUNTIME_TOKEN` only JavaScript actions get). Wire it in the entry point:
 * `createArtifactDeps(new DefaultArtifactClient())`.
 */
export function createArtifactDeps(
  client: ArtifactClient,
): Pick<PublishDeps, "downloadArtifact" | "uploadArtifact"> {
  return {
    downloadArtifact: async (name, directory) => {
      const { artifact } = await client.getArtifact(name);
      await client.downloadArtifact(artifact.id, { path: directory });
    },
    uploadArtifact: async (name, files, rootDirectory) => {
      await client.uploadArtifact(name, files, rootDirectory);
    },
  };
}
