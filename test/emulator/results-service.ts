import { randomBytes } from "node:crypto";
import type { Core } from "./create-core.ts";
import { takeId, type ArtifactRecord } from "./emulator-state.ts";
import { iso } from "./user-json.ts";
import { DOWNLOAD_PREFIX } from "./artifact-routes.ts";
import type { Reply } from "./route-reply.ts";

/**
 * The Actions results service `@actions/artifact` v2+ talks to inside a job (`ACTIONS_RESULTS_URL`):
 * Twirp JSON calls under `/twirp/github.actions.results.api.v1.ArtifactService/`, and the blob
 * storage its signed upload URLs point at (Azure block blobs: stage blocks, commit the list).
 */

export const TWIRP_PREFIX = "/twirp/github.actions.results.api.v1.ArtifactService/";
export const BLOB_PREFIX = "/_emulator/blobs/";

type Json = Record<string, unknown>;
type Upload = {
  runId: number;
  name: string;
  blocks: Map<string, Buffer>;
  data: Buffer | null;
  expiresAt: number;
};

const uploads = new WeakMap<Core, Map<string, Upload>>();

function uploadsOf(core: Core): Map<string, Upload> {
  let map = uploads.get(core);
  if (!map) uploads.set(core, (map = new Map()));
  return map;
}

function field(body: Json, snake: string, camel: string): unknown {
  return body[snake] ?? body[camel];
}

/** A wrapped `StringValue` arrives as `{ value }` or as the bare string. */
function wrapped(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && typeof (value as Json)["value"] === "string")
    return (value as Json)["value"] as string;
  return undefined;
}

function twirp(status: number, body: Json): Reply {
  return { status, body };
}

function twirpError(status: number, code: string, msg: string): Reply {
  return { status, body: { code, msg } };
}

function artifactsOf(core: Core, runId: number): ArtifactRecord[] {
  return core.state.artifacts.filter((a) => a.runId === runId);
}

function downloadUrl(core: Core, artifact: ArtifactRecord): string {
  const token = randomBytes(16).toString("hex");
  core.state.downloads.set(token, { artifactId: artifact.id, expiresAt: core.now() + 3_600_000 });
  return `${core.json.url}${DOWNLOAD_PREFIX}${token}`;
}

export function serveTwirp(core: Core, method: string, body: Json): Reply {
  const runId = Number(field(body, "workflow_run_backend_id", "workflowRunBackendId"));
  const run = core.state.runs.find((r) => r.id === runId);
  if (!run) return twirpError(404, "not_found", `no workflow run ${String(runId)}`);
  const name = wrapped(body["name"]) ?? "";
  switch (method) {
    case "CreateArtifact": {
      if (artifactsOf(core, runId).some((a) => a.name === name))
        return twirpError(409, "already_exists", `an artifact named ${name} already exists`);
      const key = randomBytes(12).toString("hex");
      const expires = field(body, "expires_at", "expiresAt");
      const expiresAt = typeof expires === "string" ? Date.parse(expires) : core.now() + 90 * 86_400_000;
      uploadsOf(core).set(key, { runId, name, blocks: new Map(), data: null, expiresAt });
      return twirp(200, { ok: true, signed_upload_url: `${core.json.url}${BLOB_PREFIX}${key}?sig=emulator` });
    }
    case "FinalizeArtifact": {
      const entry = [...uploadsOf(core)].find(
        ([, u]) => u.runId === runId && u.name === name && u.data !== null,
      );
      if (!entry) return twirpError(404, "not_found", `nothing was uploaded for ${name}`);
      const [key, upload] = entry;
      uploadsOf(core).delete(key);
      const artifact: ArtifactRecord = {
        repo: run.repo,
        id: takeId(core.state),
        runId,
        name,
        zip: upload.data ?? Buffer.alloc(0),
        createdAt: core.now(),
        expiresAt: upload.expiresAt,
      };
      core.state.artifacts.push(artifact);
      return twirp(200, { ok: true, artifact_id: String(artifact.id) });
    }
    case "ListArtifacts": {
      const nameFilter = wrapped(field(body, "name_filter", "nameFilter"));
      const idFilter = wrapped(field(body, "id_filter", "idFilter"));
      const artifacts = artifactsOf(core, runId)
        .filter((a) => nameFilter === undefined || a.name === nameFilter)
        .filter((a) => idFilter === undefined || String(a.id) === String(idFilter));
      return twirp(200, {
        artifacts: artifacts.map((a) => ({
          workflow_run_backend_id: String(runId),
          workflow_job_run_backend_id: String(runId),
          database_id: String(a.id),
          name: a.name,
          size: String(a.zip.length),
          created_at: iso(a.createdAt),
        })),
      });
    }
    case "GetSignedArtifactURL": {
      const artifact = artifactsOf(core, runId).find((a) => a.name === name);
      if (!artifact) return twirpError(404, "not_found", `no artifact named ${name}`);
      return twirp(200, { signed_url: downloadUrl(core, artifact) });
    }
    case "DeleteArtifact": {
      const artifact = artifactsOf(core, runId).find((a) => a.name === name);
      if (!artifact) return twirpError(404, "not_found", `no artifact named ${name}`);
      core.state.artifacts = core.state.artifacts.filter((a) => a !== artifact);
      return twirp(200, { ok: true, artifact_id: String(artifact.id) });
    }
    default:
      return twirpError(404, "bad_route", `no method ${method}`);
  }
}

/** Azure block blob uploads: `PUT ?comp=block&blockid=…`, `PUT ?comp=blocklist` (XML), or one `PUT`. */
export function serveBlob(core: Core, method: string, url: URL, body: Buffer): Reply {
  const upload = uploadsOf(core).get(url.pathname.slice(BLOB_PREFIX.length));
  if (!upload || method !== "PUT") return { status: 404, raw: Buffer.from("BlobNotFound") };
  const comp = url.searchParams.get("comp");
  if (comp === "block") upload.blocks.set(url.searchParams.get("blockid") ?? "", body);
  else if (comp === "blocklist") {
    const ids = [...body.toString("utf8").matchAll(/<(?:Latest|Committed|Uncommitted)>([^<]*)<\//g)].map(
      (m) => m[1] ?? "",
    );
    upload.data = Buffer.concat(ids.map((id) => upload.blocks.get(id) ?? Buffer.alloc(0)));
  } else upload.data = body;
  const headers = {
    etag: `"0x${takeId(core.state).toString(16)}"`,
    "last-modified": new Date(core.now()).toUTCString(),
    "x-ms-request-id": randomBytes(8).toString("hex"),
    "x-ms-version": "2024-11-04",
    "x-ms-request-server-encrypted": "true",
  };
  return { status: 201, headers, raw: Buffer.alloc(0) };
}
