import assert from "node:assert/strict";
import nock from "nock";
import { validateRequest } from "./openapi.ts";

/**
 * GitHub's API mocked at the network with nock. Real connections are refused (loopback only when
 * asked), every request that reaches the API host is recorded and checked against GitHub's OpenAPI
 * description, and `done()` fails the test on an invalid request, a request nothing answered, or
 * a mock that was never used. Other hosts (artifact download URLs) get `other(origin)` scopes:
 * recorded and required to be used, not validated.
 *
 *   const gh = mockGitHub();
 *   gh.api.post("/repos/o/r/git/refs").reply(201, {...});
 *   ... run the code ...
 *   gh.done();
 */

export type RecordedRequest = {
  method: string;
  /** Origin of the host that answered. */
  origin: string;
  /** Path with query. */
  path: string;
  /** The body as sent (JSON parsed when it is JSON), or undefined. */
  body: unknown;
  headers: Record<string, string>;
  /** Validation errors against the OpenAPI description (API host only). */
  errors: string[];
};

export type GitHubMock = {
  /** The nock scope for the API host. */
  api: nock.Scope;
  /** A scope for another host (e.g. the artifact download redirect target). */
  other(origin: string): nock.Scope;
  /** Every request intercepted so far, in order. */
  requests: RecordedRequest[];
  /** Requests to the API host matching a method and a path prefix or pattern. */
  find(method: string, path: string | RegExp): RecordedRequest[];
  /** Asserts: all requests valid, none unmatched, no mock left unused. Then cleans up. */
  done(): void;
  /** Cleans up without asserting (for `after` hooks after a failure). */
  cleanup(): void;
};

export type MockGitHubOptions = {
  /** Default `https://api.github.com`. */
  baseUrl?: string;
  /** Allow real connections to 127.0.0.1/localhost (for tests that also run a local server). */
  allowLocalhost?: boolean;
};

function decodeBody(body: string): unknown {
  if (body === "") return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    // Not JSON (a binary or form body): keep the raw text for the test to look at.
    return body;
  }
}

function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

export function mockGitHub(options: MockGitHubOptions = {}): GitHubMock {
  const baseUrl = options.baseUrl ?? "https://api.github.com";
  const apiOrigin = new URL(baseUrl).origin;
  const prefix = new URL(baseUrl).pathname.replace(/\/$/, "");
  nock.disableNetConnect();
  if (options.allowLocalhost) nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);

  const requests: RecordedRequest[] = [];
  const unmatched: string[] = [];
  const scopes: nock.Scope[] = [];

  const record =
    (origin: string, validate: boolean) => (request: Request, _interceptor: unknown, body: string) => {
      const url = new URL(request.url);
      const path = url.pathname + url.search;
      const decoded = decodeBody(body);
      const apiPath = prefix && path.startsWith(prefix) ? path.slice(prefix.length) : path;
      const result = validate
        ? validateRequest({ method: request.method, path: apiPath, body: decoded })
        : null;
      requests.push({
        method: request.method,
        origin,
        path: apiPath,
        body: decoded,
        headers: headersOf(request),
        errors: result && !result.ok ? result.errors : [],
      });
    };
  const onNoMatch = (request: Request) => {
    if (options.allowLocalhost && /^(127\.0\.0\.1|localhost)$/.test(new URL(request.url).hostname)) return;
    unmatched.push(`${request.method} ${request.url}`);
  };
  nock.emitter.on("no match", onNoMatch);

  const makeScope = (origin: string, validate: boolean) => {
    const scope = nock(origin);
    scope.on("request", record(origin, validate));
    scopes.push(scope);
    return scope;
  };
  const api = makeScope(apiOrigin, true);

  const cleanup = () => {
    nock.emitter.removeListener("no match", onNoMatch);
    nock.cleanAll();
    nock.enableNetConnect();
  };

  return {
    api,
    other: (origin) => makeScope(origin, false),
    requests,
    find: (method, path) =>
      requests.filter(
        (r) =>
          r.origin === apiOrigin &&
          r.method === method.toUpperCase() &&
          (typeof path === "string" ? r.path.startsWith(path) : path.test(r.path)),
      ),
    done: () => {
      const invalid = requests.filter((r) => r.errors.length > 0);
      const pending = nock.pendingMocks();
      cleanup();
      assert.deepEqual(
        invalid.map((r) => ({ request: `${r.method} ${r.path}`, errors: r.errors })),
        [],
        "requests that do not fit GitHub's OpenAPI description",
      );
      assert.deepEqual(unmatched, [], "requests no mock answered");
      assert.deepEqual(pending, [], "mocks never used");
    },
    cleanup,
  };
}
