import { createHash, randomUUID } from "node:crypto";
import { tokenOf } from "./token-of.ts";
import { ANONYMOUS, callerOf, type Caller } from "./caller-of.ts";
import { badCredentials, checkRestAccess } from "./check-access.ts";
import { ROUTE_ACCESS } from "./route-access.ts";
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { findOperation, validateRequest } from "../support/openapi.ts";
import { DOWNLOAD_PREFIX, serveDownload } from "./artifact-routes.ts";
import { isValidAppJwt } from "./app-registration.ts";
import type { Core } from "./create-core.ts";
import type { Faults, RouteFaultEffect } from "./create-faults.ts";
import type { RunControl } from "./create-run-control.ts";
import { BLOB_PREFIX, serveBlob, serveTwirp, TWIRP_PREFIX } from "./results-service.ts";
import { PIPELINES_PREFIX, servePipelines } from "./pipelines-artifact-routes.ts";
import { serveGit } from "./serve-git.ts";
import { isShutOut } from "./fork-repo.ts";
import { validateResponse } from "./validate-response.ts";
import { fail, type EmulatorSettings, type Reply, type Routes } from "./route-reply.ts";

export type Violation = {
  method: string;
  path: string;
  kind: "invalid" | "unknown-route" | "unimplemented" | "server-error" | "response";
  errors: string[];
};

export type RecordedRequest = {
  method: string;
  path: string;
  operationId: string | null;
  status: number;
  login: string;
  body: unknown;
  at: number;
};

export type RequestDeps = {
  core: Core;
  runs: RunControl;
  routes: Routes;
  faults: Faults;
  settings: EmulatorSettings;
  requests: RecordedRequest[];
  violations: Violation[];
  /** When each caller's recent REST writes were made (wall clock), for `contentLimits`. */
  writeTimes: Map<string, number[]>;
};

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** What `faultReply` answers: faults that reply in GitHub's stead. */
type ReplyingFault = Exclude<RouteFaultEffect, { type: "latency" } | { type: "disconnect" }>;

/** Status recorded for a request dropped before it was done (nginx's "client closed request"). */
export const DISCONNECTED_STATUS = 499;

/**
 * GitHub Enterprise Server serves its REST API under `/api/v3` (Probot and Octokit build
 * `<host>/api/v3` from `GHE_HOST`): the prefix is optional here and stripped before routing.
 */
export const GHES_API_PREFIX = "/api/v3";

function stripApiPrefix(url: URL): URL {
  if (url.pathname === GHES_API_PREFIX || url.pathname.startsWith(`${GHES_API_PREFIX}/`)) {
    url.pathname = url.pathname.slice(GHES_API_PREFIX.length) || "/";
  }
  return url;
}

function faultReply(effect: ReplyingFault, now: number): Reply {
  if (effect.type === "status") {
    const reply = fail(
      effect.status,
      effect.message ?? (effect.status >= 500 ? "Server Error" : "Scripted failure"),
    );
    return effect.headers ? { ...reply, headers: effect.headers } : reply;
  }
  const reset = String(Math.floor(now / 1000) + (effect.resetInSeconds ?? 60));
  if (effect.retryAfter !== undefined) {
    return {
      ...fail(
        effect.status,
        "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
      ),
      headers: { "retry-after": String(effect.retryAfter) },
    };
  }
  return {
    ...fail(
      effect.status,
      "API rate limit exceeded for installation. If you reach out to GitHub Support for help, please include the request ID.",
    ),
    headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset, "x-ratelimit-used": "5000" },
  };
}

const WRITE_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);

/**
 * GitHub's secondary limit on content-creating requests: a write by `login` that would put more
 * than a window's limit into it is refused (and not counted), with how long to wait.
 */
function overContentLimit(deps: RequestDeps, method: string, login: string): Reply | null {
  const limits = deps.settings.contentLimits;
  if (!WRITE_METHODS.has(method) || login === ANONYMOUS || limits.length === 0) return null;
  const now = Date.now();
  const longest = Math.max(...limits.map((window) => window.windowMs));
  const times = (deps.writeTimes.get(login) ?? []).filter((time) => now - time <= longest);
  deps.writeTimes.set(login, times);
  let retryAfterMs = 0;
  for (const { limit, windowMs } of limits) {
    const inWindow = times.filter((time) => now - time <= windowMs);
    if (inWindow.length >= limit)
      retryAfterMs = Math.max(retryAfterMs, inWindow[inWindow.length - limit]! + windowMs + 1 - now);
  }
  if (retryAfterMs === 0) {
    times.push(now);
    return null;
  }
  return {
    ...fail(403, "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."),
    headers: { "retry-after": String(Math.ceil(retryAfterMs / 1000)) },
  };
}

/** A reply, or `disconnect`: destroy the socket unanswered (`reply` is then only recorded). */
type Answer = { reply: Reply; operationId: string | null; disconnect?: boolean };

/** Validate against the OpenAPI description, apply scripted faults, route by operation id. */
async function answer(
  deps: RequestDeps,
  method: string,
  url: URL,
  text: string,
  req: IncomingMessage,
  caller: Caller,
): Promise<Answer> {
  const { core, violations } = deps;
  const { login } = caller;
  const where = `${url.pathname}${url.search}`;
  if (url.pathname.startsWith(DOWNLOAD_PREFIX) && method === "GET") {
    return { reply: serveDownload(core, url.pathname.slice(DOWNLOAD_PREFIX.length)), operationId: null };
  }
  const validation = validateRequest({ method, path: where, body: text });
  const found = findOperation(method, url.pathname);
  if (!validation.ok || "error" in found) {
    const errors = validation.ok ? [(found as { error: string }).error] : validation.errors;
    const unknown = "error" in found;
    violations.push({ method, path: where, kind: unknown ? "unknown-route" : "invalid", errors });
    return {
      reply: unknown ? fail(404, "Not Found") : fail(422, `Invalid request.\n\n${errors.join("\n")}`),
      operationId: null,
    };
  }
  const operationId = found.operation.operationId;
  const limited = overContentLimit(deps, method, login);
  if (limited !== null) return { reply: limited, operationId };
  const fault = deps.faults.takeRoute(method, url.pathname, found.template);
  if (fault?.type === "latency") await sleep(fault.ms);
  else if (fault?.type === "disconnect" && fault.when === "before") {
    await fault.onFire?.();
    return { reply: fail(DISCONNECTED_STATUS, "Client closed request"), operationId, disconnect: true };
  } else if (fault && fault.type !== "disconnect")
    return { reply: faultReply(fault, core.now()), operationId };
  const answered = await route(deps, operationId, found.params, method, url, text, req, caller);
  if (fault?.type !== "disconnect") return answered;
  await fault.onFire?.();
  return { ...answered, disconnect: true };
}

async function route(
  deps: RequestDeps,
  operationId: string,
  params: Record<string, string>,
  method: string,
  url: URL,
  text: string,
  req: IncomingMessage,
  caller: Caller,
): Promise<Answer> {
  const { core, violations } = deps;
  const { login } = caller;
  const where = `${url.pathname}${url.search}`;
  const handler = deps.routes[operationId];
  const unimplemented = (): Answer => {
    violations.push({
      method,
      path: where,
      kind: "unimplemented",
      errors: [`the emulator does not implement ${operationId}`],
    });
    return { reply: fail(404, `Not Found (the emulator does not implement ${operationId})`), operationId };
  };
  // GitHub checks a token's permissions before anything else: routes the emulator does not serve
  // but refuses (secrets) are refused all the same.
  if (!handler && ROUTE_ACCESS[operationId] === undefined) return unimplemented();
  const repo =
    params["owner"] !== undefined && params["repo"] !== undefined
      ? core.findRepo(params["owner"], params["repo"])
      : undefined;
  if (params["repo"] !== undefined && !repo) return { reply: fail(404, "Not Found"), operationId };
  if (repo && isShutOut(repo, login, { botLogin: core.botLogin, appSlug: core.json.appSlug }))
    return { reply: fail(404, "Not Found"), operationId };
  const refused = checkRestAccess(core, caller, operationId, repo);
  if (refused) return { reply: refused, operationId };
  if (!handler) return unimplemented();
  const body = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
  const headers = req.headers as Record<string, string | undefined>;
  const request = {
    core,
    runs: deps.runs,
    settings: deps.settings,
    repo: repo as NonNullable<typeof repo>,
    params,
    query: url.searchParams,
    body,
    headers,
    login,
    url,
  };
  try {
    const reply = await handler(request);
    if (deps.settings.checkResponses && reply.body !== undefined && reply.status < 300) {
      const problems = validateResponse(method, url.pathname, reply.status, reply.body);
      if (problems.length > 0) violations.push({ method, path: where, kind: "response", errors: problems });
    }
    return { reply, operationId };
  } catch (error) {
    violations.push({
      method,
      path: where,
      kind: "server-error",
      errors: [String((error as Error).stack ?? error)],
    });
    return { reply: fail(500, "Emulator error"), operationId };
  }
}

function send(res: ServerResponse, req: IncomingMessage, method: string, reply: Reply, now: number): number {
  const headers: Record<string, string> = {
    "x-github-request-id": randomUUID(),
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": "4999",
    "x-ratelimit-reset": String(Math.floor(now / 1000) + 3600),
    "x-ratelimit-used": "1",
    "x-ratelimit-resource": "core",
    ...reply.headers,
  };
  let payload: Buffer | undefined = reply.raw;
  if (!payload && reply.body !== undefined && reply.status !== 204 && reply.status !== 302) {
    payload = Buffer.from(JSON.stringify(reply.body));
    headers["content-type"] ??= "application/json; charset=utf-8";
  }
  if (payload && method === "GET" && reply.status === 200) {
    const etag = `"${createHash("sha1").update(payload).digest("hex")}"`;
    headers["etag"] = etag;
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, headers).end();
      return 304;
    }
  }
  res.writeHead(reply.status, headers).end(payload);
  return reply.status;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return { unparsable: text, error: (error as Error).message };
  }
}

/**
 * The job side, not GitHub's REST API: the results service (`@actions/artifact` 2+, artifact API
 * v4) and its blob uploads, or on GHES the pipelines artifact API v3 (`@actions/artifact` 1.x).
 * GHES has no results service: `@actions/artifact` 2+ refuses GHES before any request
 * (`GHESNotSupportedError`), so a request to it there is a violation.
 */
function serveRunnerSide(deps: RequestDeps, request: RunnerSideRequest): Reply | null {
  const { core, settings } = deps;
  const { method, url, bytes, text } = request;
  if (url.pathname.startsWith(PIPELINES_PREFIX)) {
    if (!settings.ghes) return { status: 404, raw: Buffer.from("Not Found") };
    return servePipelines(core, { method, url, headers: request.headers, body: bytes });
  }
  const v4 = url.pathname.startsWith(BLOB_PREFIX) || url.pathname.startsWith(TWIRP_PREFIX);
  if (v4 && settings.ghes) {
    deps.violations.push({
      method,
      path: url.pathname,
      kind: "unknown-route",
      errors: ["GitHub Enterprise Server has no results service (artifact API v4): use the v3 client"],
    });
    return { status: 404, raw: Buffer.from("Not Found") };
  }
  if (url.pathname.startsWith(BLOB_PREFIX)) return serveBlob(core, method, url, bytes);
  if (!url.pathname.startsWith(TWIRP_PREFIX) || method !== "POST") return null;
  const body = parseJson(text);
  if (typeof body !== "object" || body === null)
    return { status: 400, body: { code: "malformed", msg: "body is not JSON" } };
  return serveTwirp(core, url.pathname.slice(TWIRP_PREFIX.length), body as Record<string, unknown>);
}

type RunnerSideRequest = {
  method: string;
  url: URL;
  bytes: Buffer;
  text: string;
  headers: IncomingMessage["headers"];
};

function sideOf(url: URL): string {
  if (url.pathname.startsWith(TWIRP_PREFIX)) return `twirp/${url.pathname.slice(TWIRP_PREFIX.length)}`;
  if (url.pathname.startsWith(PIPELINES_PREFIX))
    return `pipelines/${url.pathname.slice(PIPELINES_PREFIX.length)}`;
  return "blob";
}

export function createRequestHandler(deps: RequestDeps) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = (req.method ?? "GET").toUpperCase();
    const raw = new URL(req.url ?? "/", deps.core.json.url);
    const underApiPrefix = raw.pathname === GHES_API_PREFIX || raw.pathname.startsWith(`${GHES_API_PREFIX}/`);
    const url = stripApiPrefix(raw);
    const bytes = await readBody(req);
    const text = bytes.toString("utf8");
    const caller = callerOf(deps.core, req.headers.authorization);
    const { login } = caller;
    const headers = req.headers as Record<string, string | undefined>;
    const git = await serveGit(deps.core, { method, url, body: bytes, headers, caller });
    const other = git ?? serveRunnerSide(deps, { method, url, bytes, text, headers: req.headers });
    if (other) {
      const status = send(res, req, method, other, deps.core.now());
      deps.requests.push({
        method,
        path: url.pathname.startsWith(PIPELINES_PREFIX) ? `${url.pathname}${url.search}` : url.pathname,
        operationId: git ? "git" : sideOf(url),
        status,
        login,
        body: undefined,
        at: deps.core.now(),
      });
      return;
    }
    if (deps.settings.ghes && !underApiPrefix && !url.pathname.startsWith(DOWNLOAD_PREFIX)) {
      // GHES serves its REST API only under /api/v3 (the host's root is the web interface).
      deps.violations.push({
        method,
        path: `${url.pathname}${url.search}`,
        kind: "unknown-route",
        errors: ["GitHub Enterprise Server serves the REST API under /api/v3"],
      });
      send(res, req, method, fail(404, "Not Found"), deps.core.now());
      return;
    }
    const jwt = tokenOf(req.headers.authorization ?? "");
    const badJwt = caller.kind === "app-jwt" && !isValidAppJwt(deps.core, jwt);
    if (badJwt || caller.kind === "ended") {
      const refusal = badJwt ? fail(401, "A JSON web token could not be decoded") : badCredentials();
      const status = send(res, req, method, refusal, deps.core.now());
      deps.requests.push({
        method,
        path: url.pathname,
        operationId: null,
        status,
        login,
        body: undefined,
        at: deps.core.now(),
      });
      return;
    }
    const { reply, operationId, disconnect } = await answer(deps, method, url, text, req, caller);
    let status = reply.status;
    if (disconnect) req.socket.destroy();
    else status = send(res, req, method, reply, deps.core.now());
    let body: unknown = text === "" ? undefined : text;
    if (text !== "" && (req.headers["content-type"] ?? "").includes("json")) body = parseJson(text);
    deps.requests.push({
      method,
      path: `${url.pathname}${url.search}`,
      operationId,
      status,
      login,
      body,
      at: deps.core.now(),
    });
  };
}
