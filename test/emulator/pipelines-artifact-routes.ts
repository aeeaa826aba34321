import { gunzipSync } from "node:zlib";
import type { Core } from "./create-core.ts";
import { createZip } from "./create-zip.ts";
import { takeId, type ArtifactRecord, type RunRecord } from "./emulator-state.ts";
import { iso } from "./user-json.ts";
import type { Reply } from "./route-reply.ts";

/**
 * The artifact API v3 GitHub Enterprise Server serves inside a job (`ACTIONS_RUNTIME_URL`), as
 * `@actions/artifact` 1.x (actions/upload-artifact@v3) calls it:
 * - `POST   _apis/pipelines/workflows/{run}/artifacts?api-version=6.0-preview` `{Type, Name}`:
 *   creates the artifact's file container (an existing name gets the same container: v3 appends);
 * - `PUT    _apis/resources/Containers/{id}?itemPath=<name>/<file>`: one chunk, `Content-Range:
 *   bytes s-e/total` (chunks in order), gzip with `x-tfs-filelength` = the uncompressed size;
 * - `PATCH  …/workflows/{run}/artifacts?api-version=6.0-preview&artifactName=<name>` `{Size}`: done;
 * - `GET    …/workflows/{run}/artifacts?api-version=6.0-preview`: this run's finished artifacts;
 * - `GET    _apis/resources/Containers/{id}?itemPath=<name>`: the container's items (JSON), and
 *   with `Accept: application/octet-stream` on a file's path, its content.
 * Every call needs the job's `ACTIONS_RUNTIME_TOKEN` for that run (401 otherwise; it ends with
 * the job). A finished artifact reaches the REST API (`…/actions/runs/{id}/artifacts`) only once
 * the run has completed: GHES does not list v3 artifacts mid-run.
 */

export const PIPELINES_PREFIX = "/_services/pipelines/";
const API_VERSION = "6.0-preview";

type Item = { path: string; data: Buffer; total: number; gzip: boolean; length: number | null; at: number };
type Container = {
  id: number;
  runId: number;
  name: string;
  items: Map<string, Item>;
  size: number | null;
  expiresAt: number;
  artifactId: number | null;
};

const containers = new WeakMap<Core, Map<number, Container>>();

function containersOf(core: Core): Map<number, Container> {
  let map = containers.get(core);
  if (!map) containers.set(core, (map = new Map()));
  return map;
}

export type PipelinesRequest = {
  method: string;
  url: URL;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
};

function error(status: number, message: string): Reply {
  return { status, body: { $id: "1", message, typeKey: "ArtifactServiceException", errorCode: 0 } };
}

function header(request: PipelinesRequest, name: string): string {
  const value = request.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? "";
}

function parseJson(body: Buffer): Record<string, unknown> | null {
  try {
    const value = JSON.parse(body.toString("utf8")) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function containerUrl(core: Core, container: Container): string {
  return `${core.json.url}${PIPELINES_PREFIX}_apis/resources/Containers/${container.id}`;
}

function artifactJson(core: Core, container: Container): Record<string, unknown> {
  return {
    containerId: container.id,
    size: container.size ?? -1,
    signedContent: null,
    fileContainerResourceUrl: containerUrl(core, container),
    type: "actions_storage",
    name: container.name,
    url: `${core.json.url}${PIPELINES_PREFIX}_apis/pipelines/1/runs/${container.runId}/artifacts?artifactName=${encodeURIComponent(container.name)}`,
  };
}

function isComplete(item: Item): boolean {
  return item.data.length === item.total;
}

/** The file's bytes as the job gave them (gzip undone). */
function contentOf(item: Item): Buffer {
  return item.gzip ? gunzipSync(item.data) : item.data;
}

/** The run the runtime token was issued for must be the run addressed, and still running. */
function authorize(core: Core, request: PipelinesRequest, runId: number): RunRecord | Reply {
  const token = /^bearer\s+(.+)$/i.exec(header(request, "authorization"))?.[1]?.trim() ?? "";
  const run = core.state.runs.find((r) => r.id === runId);
  if (!run || core.state.runtimeTokens.get(token) !== runId || run.status === "completed")
    return { status: 401, raw: Buffer.alloc(0) };
  return run;
}

export function servePipelines(core: Core, request: PipelinesRequest): Reply {
  const rest = request.url.pathname.slice(PIPELINES_PREFIX.length);
  const workflow = /^_apis\/pipelines\/workflows\/(\d+)\/artifacts$/.exec(rest);
  if (workflow) {
    const runId = Number(workflow[1]);
    const run = authorize(core, request, runId);
    if (!("repo" in run)) return run;
    if (request.url.searchParams.get("api-version") !== API_VERSION)
      return error(400, `api-version ${API_VERSION} is required`);
    if (request.method === "POST") return createContainer(core, request, run);
    if (request.method === "PATCH") return finalize(core, request, run);
    if (request.method === "GET") {
      const done = [...containersOf(core).values()].filter((c) => c.runId === runId && c.size !== null);
      return { status: 200, body: { count: done.length, value: done.map((c) => artifactJson(core, c)) } };
    }
    return error(405, `${request.method} is not allowed here`);
  }
  const resource = /^_apis\/resources\/Containers\/(\d+)$/.exec(rest);
  const container = resource ? containersOf(core).get(Number(resource[1])) : undefined;
  if (!container) return error(404, "no such container");
  const run = authorize(core, request, container.runId);
  if (!("repo" in run)) return run;
  if (request.method === "PUT") return uploadChunk(core, request, container);
  if (request.method === "GET") return readItems(core, request, container);
  return error(405, `${request.method} is not allowed here`);
}

function createContainer(core: Core, request: PipelinesRequest, run: RunRecord): Reply {
  const body = parseJson(request.body);
  const name = typeof body?.["Name"] === "string" ? body["Name"] : "";
  if (body?.["Type"] !== "actions_storage") return error(400, "Type must be actions_storage");
  if (name === "" || /[":<>|*?\r\n\\/]/.test(name))
    return error(400, `the artifact name ${name} is not valid`);
  const days = body["RetentionDays"];
  if (days !== undefined && (typeof days !== "number" || !Number.isInteger(days) || days < 1 || days > 400))
    return error(400, "RetentionDays must be a whole number of days from 1 to 400");
  const existing = [...containersOf(core).values()].find((c) => c.runId === run.id && c.name === name);
  if (existing) return { status: 200, body: artifactJson(core, existing) };
  const container: Container = {
    id: takeId(core.state),
    runId: run.id,
    name,
    items: new Map(),
    size: null,
    expiresAt: core.now() + (typeof days === "number" ? days : 90) * 86_400_000,
    artifactId: null,
  };
  containersOf(core).set(container.id, container);
  return { status: 201, body: artifactJson(core, container) };
}

function uploadChunk(core: Core, request: PipelinesRequest, container: Container): Reply {
  const itemPath = request.url.searchParams.get("itemPath") ?? "";
  if (!itemPath.startsWith(`${container.name}/`) || itemPath.split("/").some((p) => p === ".." || p === ""))
    return error(400, `itemPath ${itemPath} is not inside the artifact ${container.name}`);
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header(request, "content-range"));
  if (!range) return error(400, "Content-Range must be bytes <start>-<end>/<total>");
  const [start, end, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
  if (start > end || end >= total || end - start + 1 !== request.body.length)
    return error(
      400,
      `Content-Range ${header(request, "content-range")} does not match ${request.body.length} bytes`,
    );
  const gzip = header(request, "content-encoding") === "gzip";
  const length = gzip ? Number(header(request, "x-tfs-filelength")) : null;
  if (gzip && !Number.isInteger(length)) return error(400, "a gzip upload needs x-tfs-filelength");
  const previous = container.items.get(itemPath);
  const sofar = previous?.total === total && previous.gzip === gzip ? previous.data : Buffer.alloc(0);
  // Chunks arrive in order; a retried chunk may send its bytes again, never skip ahead.
  if (start > sofar.length) return error(400, `chunk at ${start} skips bytes ${sofar.length}–${start - 1}`);
  const data = Buffer.concat([sofar.subarray(0, start), request.body]);
  const item: Item = { path: itemPath, data, total, gzip, length, at: core.now() };
  if (isComplete(item) && gzip) {
    const content = (() => {
      try {
        return gunzipSync(data);
      } catch {
        return null;
      }
    })();
    if (content === null || content.length !== length)
      return error(400, `the gzip content of ${itemPath} does not unpack to x-tfs-filelength bytes`);
  }
  container.items.set(itemPath, item);
  return {
    status: 201,
    body: { containerId: container.id, path: itemPath, itemType: "file", fileLength: item.length ?? total },
  };
}

function finalize(core: Core, request: PipelinesRequest, run: RunRecord): Reply {
  const name = request.url.searchParams.get("artifactName") ?? "";
  const container = [...containersOf(core).values()].find((c) => c.runId === run.id && c.name === name);
  if (!container) return error(404, `An Artifact with the name ${name} was not found`);
  const body = parseJson(request.body);
  if (typeof body?.["Size"] !== "number") return error(400, "Size must be a number");
  container.size = body["Size"];
  const files: Record<string, Buffer> = {};
  for (const item of container.items.values())
    if (isComplete(item)) files[item.path.slice(container.name.length + 1)] = contentOf(item);
  const existing = core.state.artifacts.find((a) => a.id === container.artifactId);
  if (existing) existing.zip = createZip(files);
  else {
    const artifact: ArtifactRecord = {
      repo: run.repo,
      id: takeId(core.state),
      runId: run.id,
      name,
      zip: createZip(files),
      createdAt: core.now(),
      expiresAt: container.expiresAt,
      listedAfterRunCompletes: true,
    };
    core.state.artifacts.push(artifact);
    container.artifactId = artifact.id;
  }
  return {
    status: 200,
    body: { ...artifactJson(core, container), uploadUrl: containerUrl(core, container) },
  };
}

function readItems(core: Core, request: PipelinesRequest, container: Container): Reply {
  const itemPath = request.url.searchParams.get("itemPath") ?? "";
  const complete = [...container.items.values()].filter(isComplete);
  const file = complete.find((i) => i.path === itemPath);
  if (file && header(request, "accept").startsWith("application/octet-stream")) {
    const headers: Record<string, string> = { "content-type": "application/octet-stream" };
    if (file.gzip) headers["content-encoding"] = "gzip";
    return { status: 200, raw: file.data, headers };
  }
  const items = complete.filter((i) => i.path === itemPath || i.path.startsWith(`${itemPath}/`));
  if (items.length === 0) return error(404, `no items at ${itemPath}`);
  const entry = (path: string, extra: Record<string, unknown>, at: number) => ({
    containerId: container.id,
    scopeIdentifier: "00000000-0000-0000-0000-000000000000",
    path,
    status: "created",
    dateCreated: iso(at),
    dateLastModified: iso(at),
    createdBy: "00000000-0000-0000-0000-000000000000",
    lastModifiedBy: "00000000-0000-0000-0000-000000000000",
    itemLocation: `${containerUrl(core, container)}?itemPath=${encodeURIComponent(path)}&metadata=True`,
    contentId: "",
    ...extra,
  });
  const value = [
    ...(file ? [] : [entry(itemPath, { itemType: "folder" }, core.now())]),
    ...items.map((i) =>
      entry(
        i.path,
        {
          itemType: "file",
          fileLength: i.length ?? i.total,
          fileEncoding: 1,
          fileType: 1,
          contentLocation: `${containerUrl(core, container)}?itemPath=${encodeURIComponent(i.path)}`,
        },
        i.at,
      ),
    ),
  ];
  return { status: 200, body: { count: value.length, value } };
}
