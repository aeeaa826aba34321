import type http from "node:http";
import { verifySigV4 } from "./aws-sigv4.ts";

/**
 * The scripted model server as a cloud provider's endpoint (option `provider` of
 * `startFakeModelServer`), answering what Claude Code sends with `CLAUDE_CODE_USE_BEDROCK=1` or
 * `CLAUDE_CODE_USE_VERTEX=1` and the base-URL variable pointing here (measured against the pinned
 * binary, 2.1.197):
 *
 * Bedrock (`ANTHROPIC_BEDROCK_BASE_URL=<url>`): `GET /inference-profiles?type=SYSTEM_DEFINED`
 * (the AWS SDK's ListInferenceProfiles), `POST /model/<modelId>/invoke` (JSON; Claude Code probes
 * each model it may fall back to with `max_tokens: 1`) and `POST /model/<modelId>/invoke-with-response-stream`
 * (AWS event stream frames, each a Messages API event as base64 `chunk.bytes`). The body has no
 * `model` (it is in the path) and `anthropic_version: bedrock-2023-05-31`. Every request must carry
 * a SigV4 signature by the expected access key, over the expected region and service `bedrock`,
 * with the session token: otherwise 403 with Bedrock's error shape (`x-amzn-ErrorType`, `{message}`).
 *
 * Vertex AI (`ANTHROPIC_VERTEX_BASE_URL=<url>/v1`): `POST /v1/projects/<p>/locations/<r>/publishers/anthropic/models/<m>:rawPredict`
 * (JSON; probes as on Bedrock) and `:streamRawPredict` (SSE), `count-tokens:rawPredict`; the body
 * has no `model` and `anthropic_version: vertex-2023-10-16`. Each needs `Authorization: Bearer` the
 * service account's access token, which Claude Code's google-auth-library gets here too, from the
 * external_account credentials file google-github-actions/auth writes (see `vertexFederation`):
 * GitHub's OIDC token endpoint (`GET /github-oidc/token?audience=…`, bearer the job's
 * ACTIONS_ID_TOKEN_REQUEST_TOKEN), Google's STS (`POST /sts/v1/token`, the OIDC token for a federated
 * token) and IAM Credentials (`POST /iamcredentials/v1/projects/-/serviceAccounts/<sa>:generateAccessToken`,
 * bearer the federated token). Each step checks what the previous one handed out; refusals take
 * Google's error shapes.
 */
export type FakeProvider = FakeBedrock | FakeVertex;

export type FakeBedrock = {
  kind: "bedrock";
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
};

export type FakeVertex = {
  kind: "vertex";
  project: string;
  region: string;
  /** `projects/<number>/locations/global/workloadIdentityPools/<pool>/providers/<provider>`. */
  workloadIdentityProvider: string;
  serviceAccount: string;
  /** What the job's ACTIONS_ID_TOKEN_REQUEST_TOKEN is (the OIDC token endpoint wants it). */
  idTokenRequestToken: string;
  /** GitHub's OIDC token, the STS federated token, the service account's access token: all secrets. */
  githubIdToken: string;
  federatedToken: string;
  accessToken: string;
};

/** The URLs google-github-actions/auth puts in its credentials file, on the scripted server. */
export type VertexFederation = { idTokenRequestUrl: string; stsUrl: string; iamCredentialsUrl: string };

export function vertexFederation(serverUrl: string): VertexFederation {
  return {
    idTokenRequestUrl: `${serverUrl}/github-oidc/token?api-version=2.0`,
    stsUrl: `${serverUrl}/sts/v1`,
    iamCredentialsUrl: `${serverUrl}/iamcredentials/v1`,
  };
}

/** The variable that points Claude Code at the scripted provider endpoint, and its value. */
export function providerBaseUrl(provider: FakeProvider, serverUrl: string): Record<string, string> {
  return provider.kind === "bedrock"
    ? { ANTHROPIC_BEDROCK_BASE_URL: serverUrl }
    : { ANTHROPIC_VERTEX_BASE_URL: `${serverUrl}/v1` };
}

export type ProviderRequest = {
  method: string;
  url: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: Record<string, unknown> | null;
};

export type ProviderRoute =
  | { type: "answer"; status: number; headers: Record<string, string>; body: string }
  | { type: "count_tokens" }
  | { type: "messages"; model: string; stream: boolean; framing: "sse" | "json" | "event-stream" };

const json = (status: number, body: unknown, headers: Record<string, string> = {}): ProviderRoute => ({
  type: "answer",
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

export function routeProviderRequest(provider: FakeProvider, request: ProviderRequest): ProviderRoute {
  return provider.kind === "bedrock" ? routeBedrock(provider, request) : routeVertex(provider, request);
}

function bedrockError(status: number, type: string, message: string): ProviderRoute {
  return json(
    status,
    { message },
    { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.coral.service/` },
  );
}

const BEDROCK_MODEL = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/;

function routeBedrock(provider: FakeBedrock, request: ProviderRequest): ProviderRoute {
  const verdict = verifySigV4(
    { method: request.method, url: request.url, headers: request.headers, body: request.raw },
    { ...provider, service: "bedrock" },
  );
  if (!verdict.ok) return bedrockError(verdict.status, verdict.type, verdict.message);
  if (request.method === "GET" && request.path === "/inference-profiles")
    return json(200, { inferenceProfileSummaries: [] });
  const model = BEDROCK_MODEL.exec(request.path);
  if (request.method !== "POST" || !model)
    return bedrockError(
      404,
      "UnknownOperationException",
      `no Bedrock operation ${request.method} ${request.path}`,
    );
  if (
    request.body === null ||
    "model" in request.body ||
    request.body["anthropic_version"] !== "bedrock-2023-05-31"
  )
    return bedrockError(
      400,
      "ValidationException",
      "Malformed input request: a Messages body without model and with anthropic_version bedrock-2023-05-31, please reformat your input and try again.",
    );
  const stream = model[2] === "invoke-with-response-stream";
  return {
    type: "messages",
    model: decodeURIComponent(model[1] ?? ""),
    stream,
    framing: stream ? "event-stream" : "json",
  };
}

const googleError = (status: number, state: string, message: string): ProviderRoute =>
  json(status, { error: { code: status, message, status: state } });

const bearer = (request: ProviderRequest): string => {
  const value = request.headers["authorization"] ?? "";
  return value.startsWith("Bearer ") ? value.slice("Bearer ".length) : "";
};

const VERTEX_MODEL =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):(rawPredict|streamRawPredict)$/;

function routeVertex(provider: FakeVertex, request: ProviderRequest): ProviderRoute {
  const { path } = request;
  if (path === "/github-oidc/token") {
    if (request.method !== "GET" || bearer(request) !== provider.idTokenRequestToken)
      return json(401, { message: "Bad credentials" });
    return json(200, { count: provider.githubIdToken.length, value: provider.githubIdToken });
  }
  if (path === "/sts/v1/token") {
    const form = new URLSearchParams(request.raw.toString("utf8"));
    const audience = `//iam.googleapis.com/${provider.workloadIdentityProvider}`;
    if (form.get("subject_token") !== provider.githubIdToken || form.get("audience") !== audience)
      return json(400, {
        error: "invalid_grant",
        error_description: "The audience or subject token is invalid.",
      });
    return json(200, {
      access_token: provider.federatedToken,
      issued_token_type: "urn:ietf:params:oauth:token-type:access_token",
      token_type: "Bearer",
      expires_in: 3600,
    });
  }
  if (path.startsWith("/iamcredentials/v1/")) {
    const expected = `/iamcredentials/v1/projects/-/serviceAccounts/${provider.serviceAccount}:generateAccessToken`;
    if (bearer(request) !== provider.federatedToken)
      return googleError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.");
    if (path !== expected)
      return googleError(
        403,
        "PERMISSION_DENIED",
        "Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist).",
      );
    return json(200, {
      accessToken: provider.accessToken,
      expireTime: new Date(Date.now() + 3_600_000).toISOString(),
    });
  }
  if (bearer(request) !== provider.accessToken)
    return googleError(
      401,
      "UNAUTHENTICATED",
      "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
    );
  const model = VERTEX_MODEL.exec(path);
  if (request.method !== "POST" || !model)
    return googleError(404, "NOT_FOUND", `no route ${request.method} ${path}`);
  const [, project, region, name = "", method] = model;
  if (project !== provider.project || region !== provider.region)
    return googleError(
      404,
      "NOT_FOUND",
      `Publisher Model \`projects/${project}/locations/${region}/publishers/anthropic/models/${name}\` not found.`,
    );
  if (name === "count-tokens") return { type: "count_tokens" };
  if (
    request.body === null ||
    "model" in request.body ||
    request.body["anthropic_version"] !== "vertex-2023-10-16"
  )
    return googleError(
      400,
      "INVALID_ARGUMENT",
      "a Messages body without model and with anthropic_version vertex-2023-10-16",
    );
  const stream = method === "streamRawPredict";
  return { type: "messages", model: name, stream, framing: stream ? "sse" : "json" };
}
