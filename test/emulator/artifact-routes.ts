import { randomBytes } from "node:crypto";
import type { Core } from "./create-core.ts";
import type { ArtifactRecord } from "./emulator-state.ts";
import { artifactJson } from "./github-json.ts";
import { fail, notFound, ok, paginate, type Reply, type RouteRequest, type Routes } from "./route-reply.ts";

/** Artifacts of runs: list, get, delete, and download through a one-time URL on the emulator. */

export const DOWNLOAD_PREFIX = "/_emulator/artifact-downloads/";

/**
 * Whether the REST API shows the artifact yet: artifacts uploaded with the artifact API v3 (GHES)
 * only once their run has completed (GHES lists no v3 artifact of a run in progress).
 */
export function isListed(core: Core, artifact: ArtifactRecord): boolean {
  if (artifact.listedAfterRunCompletes !== true) return true;
  return core.state.runs.some((r) => r.id === artifact.runId && r.status === "completed");
}

function artifactOf(request: RouteRequest): ArtifactRecord | undefined {
  const id = Number(request.params["artifact_id"]);
  const { core } = request;
  return core.state.artifacts.find(
    (a) => a.repo === request.repo.fullName && a.id === id && isListed(core, a),
  );
}

/** Serves a download URL once (then 404), while it is valid (410 after). */
export function serveDownload(core: Core, token: string): Reply {
  const ticket = core.state.downloads.get(token);
  if (!ticket) return notFound();
  core.state.downloads.delete(token);
  if (core.now() > ticket.expiresAt) return fail(410, "The download URL expired");
  const artifact = core.state.artifacts.find((a) => a.id === ticket.artifactId);
  if (!artifact) return notFound();
  return {
    status: 200,
    raw: artifact.zip,
    headers: {
      "content-type": "application/zip",
      "content-disposition": `attachment; filename=${artifact.name}.zip`,
    },
  };
}

export const artifactRoutes: Routes = {
  "actions/list-workflow-run-artifacts": (request) => {
    const { core, repo, query } = request;
    const runId = Number(request.params["run_id"]);
    if (!core.state.runs.some((r) => r.repo === repo.fullName && r.id === runId)) return notFound();
    const name = query.get("name");
    const direction = query.get("direction") ?? "desc";
    const artifacts = core.state.artifacts
      .filter((a) => a.repo === repo.fullName && a.runId === runId && (name === null || a.name === name))
      .filter((a) => isListed(core, a))
      .sort((a, b) => (direction === "asc" ? a.id - b.id : b.id - a.id));
    const page = paginate(request, artifacts);
    const now = core.now();
    return {
      status: 200,
      body: {
        total_count: artifacts.length,
        artifacts: page.items.map((a) => artifactJson(core.json, repo, a, now)),
      },
      headers: page.headers,
    };
  },
  "actions/get-artifact": (request) => {
    const artifact = artifactOf(request);
    return artifact
      ? ok(artifactJson(request.core.json, request.repo, artifact, request.core.now()))
      : notFound();
  },
  "actions/delete-artifact": (request) => {
    const artifact = artifactOf(request);
    if (!artifact) return notFound();
    request.core.state.artifacts = request.core.state.artifacts.filter((a) => a !== artifact);
    return { status: 204 };
  },
  "actions/download-artifact": (request) => {
    const { core, settings } = request;
    if (request.params["archive_format"] !== "zip") return notFound();
    const artifact = artifactOf(request);
    if (!artifact) return notFound();
    if (core.now() >= artifact.expiresAt) return fail(410, "Artifact has expired");
    const token = randomBytes(16).toString("hex");
    core.state.downloads.set(token, {
      artifactId: artifact.id,
      expiresAt: core.now() + settings.downloadUrlTtlMs,
    });
    return { status: 302, headers: { location: `${core.json.url}${DOWNLOAD_PREFIX}${token}` } };
  },
};
