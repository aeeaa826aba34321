import { createGitHubClient } from "../github/create-github-client.ts";
import type { ArtifactReader, ArtifactSource } from "./artifact-port.ts";
import { extractZip } from "./extract-zip.ts";

/**
 * Another run's artifacts through GitHub's REST API (`GET …/actions/runs/{id}/artifacts`, then
 * `GET …/actions/artifacts/{id}/zip`, which redirects to the zip), with the token the source
 * names. What a recovery reads its previous run's handoff with on GitHub Enterprise Server, where
 * the artifact API v3 reads only the job's own run. GHES lists v3 artifacts only once their run
 * has completed, which a previous run has by the time a recovery starts.
 */
export function createRestArtifactReader(options: { apiUrl: string; retryBaseMs?: number }): ArtifactReader {
  const clientFor = (source: ArtifactSource) =>
    createGitHubClient({
      token: source.token,
      apiUrl: options.apiUrl,
      ...(options.retryBaseMs === undefined ? {} : { retryBaseMs: options.retryBaseMs }),
    });
  return {
    list: async (source) => {
      const github = clientFor(source);
      const artifacts = await github.paginate(github.rest.actions.listWorkflowRunArtifacts, {
        owner: source.owner,
        repo: source.repo,
        run_id: source.runId,
        per_page: 100,
      });
      return artifacts
        .filter((a) => !a.expired)
        .map((a) => ({ id: a.id, name: a.name, createdAt: Date.parse(a.created_at ?? "") || 0 }))
        .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
    },
    download: async (source, artifactId, directory) => {
      const github = clientFor(source);
      const { data } = await github.rest.actions.downloadArtifact({
        owner: source.owner,
        repo: source.repo,
        artifact_id: artifactId,
        archive_format: "zip",
      });
      if (!(data instanceof ArrayBuffer)) throw new Error(`artifact ${artifactId}: GitHub sent no zip`);
      await extractZip(new Uint8Array(data), directory);
    },
  };
}
