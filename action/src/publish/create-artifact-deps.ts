import type { JobArtifacts } from "../upload/artifact-port.ts";
import type { PublishDeps } from "./run-publish.ts";

/**
 * `runPublish`'s artifact port on the job's artifacts (`createJobArtifacts(env)`: this run's
 * artifacts through the `ACTIONS_RUNTIME_TOKEN` only JavaScript actions get, v4 or on GHES v3).
 */
export function createArtifactDeps(
  artifacts: Pick<JobArtifacts, "download" | "upload">,
): Pick<PublishDeps, "downloadArtifact" | "uploadArtifact"> {
  return {
    downloadArtifact: (name, directory) => artifacts.download(name, directory),
    uploadArtifact: (name, files, rootDirectory) => artifacts.upload(name, files, rootDirectory),
  };
}
