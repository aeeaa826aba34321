import { DefaultArtifactClient } from "@actions/artifact";
import type { ArtifactReader, UploadArtifact } from "./artifact-port.ts";

/** The real artifact ports, on `@actions/artifact` (needs the job's ACTIONS_RUNTIME_TOKEN). */
export function createArtifactClient(options: { retentionDays?: number } = {}): {
  upload: UploadArtifact;
  reader: ArtifactReader;
  download: (name: string, directory: string) => Promise<void>;
} {
  const client = new DefaultArtifactClient();
  const retention = options.retentionDays === undefined ? {} : { retentionDays: options.retentionDays };
  return {
    upload: async (name, files, rootDirectory) => {
      await client.uploadArtifact(name, files, rootDirectory, retention);
    },
    reader: {
      list: async (source) => {
        const findBy = {
          token: source.token,
          workflowRunId: source.runId,
          repositoryOwner: source.owner,
          repositoryName: source.repo,
        };
        const { artifacts } = await client.listArtifacts({ findBy });
        return artifacts
          .map((a) => ({ id: a.id, name: a.name, createdAt: a.createdAt?.getTime() ?? 0 }))
          .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
      },
      download: async (source, artifactId, directory) => {
        const findBy = {
          token: source.token,
          workflowRunId: source.runId,
          repositoryOwner: source.owner,
          repositoryName: source.repo,
        };
        await client.downloadArtifact(artifactId, { path: directory, findBy });
      },
    },
    download: async (name, directory) => {
      const { artifact } = await client.getArtifact(name);
      await client.downloadArtifact(artifact.id, { path: directory });
    },
  };
}
