import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { takeId, type ArtifactRecord } from "../../emulator/emulator-state.ts";
import type { Emulator } from "../../emulator/start-emulator.ts";

/**
 * The Actions Results service `@actions/artifact` 6.x talks to (`ACTIONS_RESULTS_URL`), on
 * loopback: the twirp JSON RPCs of `github.actions.results.api.v1.ArtifactService` and the signed
 * blob URLs the client uploads to (Azure block blob: `PUT ?comp=block` per chunk, then
 * `PUT ?comp=blocklist`) and downloads from. A finalized artifact lands in the emulator's run, so
 * the REST API (`GET …/runs/{id}/artifacts`, the zip download) serves the very bytes uploaded.
 *
 * The runtime token is a JWT whose `scp` claim holds `Actions.Results:<runId>:<jobId>`; requests
 * must carry it and may only touch their own run.
 */
export type ResultsService = {
  url: string;
  /** The `ACTIONS_RUNTIME_TOKEN` of one job of a run. */
  tokenFor(runId: number, jobId: string): string;
  /** Every request, as `METHOD path` (query left off), for debugging. */
  log: string[];
  /** Requests refused as malformed or unauthorized (a test asserts none). */
  problems: string[];
  close(): Promise<void>;
};

type Json = Record<string, unknown>;
type Pending = {
  runId: number;
  name: string;
  blocks: Map<string, Buffer>;
  blob: Buffer | null;
  expiresAt: number | null;
};

const SERVICE = "/twirp/github.actions.results.api.v1.ArtifactService/";

function base64url(value: string): string {
  return Buffer.from(value).toString("base64url");
}

/** The backend ids a runtime token grants, the way `@actions/artifact` reads them. */
function readScope(authorization: string | undefined): { runId: string; jobId: string } | null {
  const token = /^Bearer\s+(.+)$/i.exec(authorization ?? "")?.[1] ?? "";
  const payload = token.split(".")[1];
  if (payload === undefined) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { scp?: string };
    for (const scope of (claims.scp ?? "").split(" ")) {
      const [kind, runId, jobId] = scope.split(":");
      if (kind === "Actions.Results" && runId && jobId) return { runId, jobId };
    }
  } catch (error) {
    return error instanceof Error ? null : null;
  }
  return null;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function reply(res: ServerResponse, status: number, body: Json | Buffer | null, headers: Json = {}): void {
  const payload =
    body === null ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    ...(Buffer.isBuffer(body) || body === null ? {} : { "content-type": "application/json" }),
    ...(headers as Record<string, string>),
  });
  res.end(payload);
}

export async function startResultsService(
  emulator: Emulator,
  now: () => number = Date.now,
): Promise<ResultsService> {
  const pending = new Map<string, Pending>();
  const downloads = new Map<string, number>();
  const log: string[] = [];
  const problems: string[] = [];
  let url = "";

  const artifactsOf = (runId: number): ArtifactRecord[] =>
    emulator.state.artifacts.filter((a) => a.runId === runId).sort((a, b) => a.id - b.id);

  const twirp = (method: string, body: Json, runId: number): Json | null => {
    const name = typeof body["name"] === "string" ? body["name"] : "";
    switch (method) {
      case "CreateArtifact": {
        const token = randomBytes(12).toString("hex");
        const expires = typeof body["expires_at"] === "string" ? Date.parse(body["expires_at"]) : NaN;
        pending.set(token, {
          runId,
          name,
          blocks: new Map(),
          blob: null,
          expiresAt: Number.isNaN(expires) ? null : expires,
        });
        return {
          ok: true,
          signed_upload_url: `${url}/blob/upload/${token}?sig=${randomBytes(8).toString("hex")}`,
        };
      }
      case "FinalizeArtifact": {
        const entry = [...pending.entries()].find(([, p]) => p.runId === runId && p.name === name);
        if (!entry || entry[1].blob === null) return null;
        pending.delete(entry[0]);
        const at = now();
        const artifact: ArtifactRecord = {
          repo: emulator.runs.find(runId).repo,
          id: takeId(emulator.state),
          runId,
          name,
          zip: entry[1].blob,
          createdAt: at,
          expiresAt: entry[1].expiresAt ?? at + 90 * 86_400_000,
        };
        // Names are unique within a run: "overwriting" replaces the old one with a new id.
        emulator.state.artifacts = emulator.state.artifacts.filter(
          (a) => !(a.runId === runId && a.name === name),
        );
        emulator.state.artifacts.push(artifact);
        return { ok: true, artifact_id: String(artifact.id) };
      }
      case "ListArtifacts": {
        const nameFilter = typeof body["name_filter"] === "string" ? body["name_filter"] : null;
        const idFilter = body["id_filter"] === undefined ? null : Number(body["id_filter"]);
        const artifacts = artifactsOf(runId)
          .filter(
            (a) => (nameFilter === null || a.name === nameFilter) && (idFilter === null || a.id === idFilter),
          )
          .map((a) => ({
            workflow_run_backend_id: String(runId),
            workflow_job_run_backend_id: "job",
            database_id: String(a.id),
            name: a.name,
            size: String(a.zip.length),
            created_at: new Date(a.createdAt).toISOString(),
          }));
        return { artifacts };
      }
      case "GetSignedArtifactURL": {
        const artifact = artifactsOf(runId).findLast((a) => a.name === name);
        if (!artifact) return null;
        const token = randomBytes(12).toString("hex");
        downloads.set(token, artifact.id);
        return { signed_url: `${url}/blob/download/${token}?sig=${randomBytes(8).toString("hex")}` };
      }
      default:
        return null;
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const where = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = req.method ?? "GET";
    log.push(`${method} ${where.pathname}`);
    const raw = await readBody(req);
    if (method === "POST" && where.pathname.startsWith(SERVICE)) {
      const scope = readScope(req.headers.authorization);
      const body = JSON.parse(raw.toString("utf8") || "{}") as Json;
      if (scope === null || body["workflow_run_backend_id"] !== scope.runId) {
        problems.push(`${where.pathname}: token scope does not match the request`);
        return reply(res, 401, { code: "unauthenticated", msg: "invalid runtime token" });
      }
      const answer = twirp(where.pathname.slice(SERVICE.length), body, Number(scope.runId));
      if (answer === null) return reply(res, 404, { code: "not_found", msg: "artifact not found" });
      return reply(res, 200, answer);
    }
    const upload = /^\/blob\/upload\/([0-9a-f]+)$/.exec(where.pathname);
    if (upload && method === "PUT") {
      const target = pending.get(upload[1] ?? "");
      if (!target) return reply(res, 404, null);
      const comp = where.searchParams.get("comp");
      if (comp === "block") target.blocks.set(where.searchParams.get("blockid") ?? "", raw);
      else if (comp === "blocklist") {
        const ids = [...raw.toString("utf8").matchAll(/<(?:Latest|Committed|Uncommitted)>([^<]*)<\//g)].map(
          (m) => m[1] ?? "",
        );
        target.blob = Buffer.concat(ids.map((id) => target.blocks.get(id) ?? Buffer.alloc(0)));
      } else target.blob = raw; // a single-shot PUT Blob
      return reply(res, 201, null, {
        etag: `"${randomBytes(6).toString("hex")}"`,
        "last-modified": new Date(now()).toUTCString(),
        "x-ms-request-server-encrypted": "true",
      });
    }
    const download = /^\/blob\/download\/([0-9a-f]+)$/.exec(where.pathname);
    if (download && method === "GET") {
      const id = downloads.get(download[1] ?? "");
      const artifact = emulator.state.artifacts.find((a) => a.id === id);
      if (!artifact) return reply(res, 404, null);
      return reply(res, 200, artifact.zip, { "content-type": "application/zip" });
    }
    problems.push(`unknown request ${method} ${where.pathname}`);
    reply(res, 404, null);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      problems.push(`server error: ${String(error)}`);
      if (!res.headersSent) reply(res, 500, { code: "internal", msg: String(error) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    log,
    problems,
    tokenFor: (runId, jobId) =>
      [
        base64url(JSON.stringify({ typ: "JWT", alg: "none" })),
        base64url(
          JSON.stringify({
            scp: `Actions.GenericRead:x Actions.Results:${runId}:${jobId}`,
            iat: Math.floor(now() / 1000),
          }),
        ),
        "emulator",
      ].join("."),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
