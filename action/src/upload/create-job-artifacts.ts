import type { JobArtifacts } from "./artifact-port.ts";
import { createArtifactClient } from "./create-artifact-client.ts";
import { createLegacyArtifactClient } from "./create-legacy-artifact-client.ts";
import { createRestArtifactReader } from "./create-rest-artifact-reader.ts";

/**
 * Whether the job runs on GitHub Enterprise Server, read as `@actions/artifact` 2+ reads it: any
 * `GITHUB_SERVER_URL` host but github.com, `*.ghe.com` (GHE.com) and `*.localhost`. Exactly where
 * that client would throw `GHESNotSupportedError`, the artifact API v3 is used instead.
 */
export function isGhesServer(serverUrl: string | undefined): boolean {
  const hostname = new URL(serverUrl || "https://github.com").hostname.trimEnd().toUpperCase();
  return hostname !== "GITHUB.COM" && !hostname.endsWith(".GHE.COM") && !hostname.endsWith(".LOCALHOST");
}

/**
 * The job's artifact ports for the server it runs on: the artifact API v4 (`@actions/artifact`
 * 6.x, the results service) on github.com and GHE.com; on GHES the v3 API (`@actions/artifact`
 * 1.x) for this run, and the REST API at `GITHUB_API_URL` for other runs.
 */
export function createJobArtifacts(
  env: Record<string, string | undefined>,
  options: { retentionDays?: number } = {},
): JobArtifacts {
  if (!isGhesServer(env["GITHUB_SERVER_URL"])) return createArtifactClient(options);
  const reader = createRestArtifactReader({ apiUrl: env["GITHUB_API_URL"] ?? "https://api.github.com" });
  return createLegacyArtifactClient({ ...options, reader });
}
