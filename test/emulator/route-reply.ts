import type { Core } from "./create-core.ts";
import type { RunControl } from "./create-run-control.ts";
import type { RepoRecord } from "./emulator-state.ts";

/** Behaviour switches a test may flip while the emulator runs. */
export type EmulatorSettings = {
  /** Answer 422 to `return_run_details` on dispatch, like GHES servers that predate it. */
  refuseReturnRunDetails: boolean;
  /** Most inputs a dispatch takes (25 on github.com, 10 on GHES 3.17–3.19). */
  maxDispatchInputs: number;
  /** Also check every 2xx JSON answer against GitHub's response schema (mismatches are violations of kind "response"). */
  checkResponses: boolean;
  /** How long an artifact download URL is valid (ms). */
  downloadUrlTtlMs: number;
  /**
   * Play GitHub Enterprise Server: jobs get a GHES `GITHUB_SERVER_URL` and `ACTIONS_RUNTIME_URL`
   * (artifact API v3, `pipelines-artifact-routes.ts`) and no results service (v4).
   */
  ghes: boolean;
  /**
   * GitHub's secondary limits on content-creating requests, per caller (FACTS.md: 80 a minute, 500
   * an hour), on the wall clock. The emulator counts every REST write (POST, PATCH, PUT, DELETE) by
   * a caller with credentials, the strict reading; over a limit it answers 403 "secondary rate
   * limit" with `retry-after`, as GitHub does. `[]` turns them off.
   */
  contentLimits: readonly { limit: number; windowMs: number }[];
};

export type Reply = { status: number; body?: unknown; headers?: Record<string, string>; raw?: Buffer };

export type RouteRequest = {
  core: Core;
  runs: RunControl;
  settings: EmulatorSettings;
  /** The repository named by `{owner}/{repo}`, when the route has one (the server answers 404 for unknown ones). */
  repo: RepoRecord;
  params: Record<string, string>;
  query: URLSearchParams;
  body: Record<string, unknown>;
  headers: Record<string, string | undefined>;
  /** Who the token acts as. */
  login: string;
  /** The full request URL (for pagination links). */
  url: URL;
};

export type Handler = (request: RouteRequest) => Promise<Reply> | Reply;

/** Handlers by OpenAPI operation id. */
export type Routes = Record<string, Handler>;

const DOCS = "https://docs.github.com/rest";

export function fail(status: number, message: string): Reply {
  return { status, body: { message, documentation_url: DOCS, status: String(status) } };
}

export function notFound(): Reply {
  return fail(404, "Not Found");
}

export function ok(body: unknown, status = 200): Reply {
  return { status, body };
}

/** One page of `items` (`per_page` default 30, max 100) with GitHub's `Link` header. */
export function paginate<T>(
  request: RouteRequest,
  items: T[],
): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(Math.max(Number(request.query.get("per_page") ?? 30) || 30, 1), 100);
  const page = Math.max(Number(request.query.get("page") ?? 1) || 1, 1);
  const last = Math.max(Math.ceil(items.length / perPage), 1);
  const link = (n: number, rel: string): string => {
    const url = new URL(request.url);
    url.searchParams.set("per_page", String(perPage));
    url.searchParams.set("page", String(n));
    return `<${url.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page < last) links.push(link(page + 1, "next"), link(last, "last"));
  if (page > 1) links.push(link(1, "first"), link(page - 1, "prev"));
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    headers: links.length > 0 ? { link: links.join(", ") } : {},
  };
}

export function readString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  return typeof value === "string" ? value : undefined;
}
