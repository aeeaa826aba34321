import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/**
 * Checks an AWS Signature Version 4 `Authorization` header as an AWS service does ("Create a signed
 * AWS API request", AWS IAM docs): the credential scope names the expected access key, region and
 * service; the signature recomputed with the secret key over the canonical request (method, URI with
 * each path segment percent-encoded, sorted query, the signed headers, the payload's SHA-256) matches.
 * For a scripted endpoint on 127.0.0.1 that refuses what the real one would.
 */
export type SigV4Keys = {
  accessKeyId: string;
  secretAccessKey: string;
  /** Required in `x-amz-security-token` when given (temporary credentials). */
  sessionToken?: string;
  region: string;
  service: string;
};

export type SignedRequest = {
  method: string;
  /** Path and query as sent (`req.url`). */
  url: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Buffer;
};

/** Why AWS refuses: its error type (`x-amzn-ErrorType`) and message. */
export type SigV4Result = { ok: true } | { ok: false; status: 400 | 403; type: string; message: string };

const sha256 = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");
const hmac = (key: Buffer | string, data: string): Buffer => createHmac("sha256", key).update(data).digest();

/** RFC 3986 unreserved characters stay, everything else is %XX (what AWS's `uriEscape` does). */
function awsEscape(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function canonicalPath(path: string): string {
  // Each segment as the client had it, escaped once more: AWS services other than S3 double-encode.
  return path
    .split("/")
    .map((segment) => awsEscape(segment))
    .join("/");
}

function canonicalQuery(query: string): string {
  if (query === "") return "";
  return query
    .split("&")
    .map((pair) => {
      const [name = "", value = ""] = pair.split("=", 2);
      return [awsEscape(decodeURIComponent(name)), awsEscape(decodeURIComponent(value))] as const;
    })
    .sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

const header = (headers: SignedRequest["headers"], name: string): string => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : (value ?? "");
};

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/;

/** The hex signature of `request` over `signedHeaders` (the `Signature=` of its Authorization header). */
function signatureOf(
  request: SignedRequest,
  keys: SigV4Keys,
  names: readonly string[],
  amzDate: string,
  date: string,
  payloadHash: string,
): string {
  const [path = "/", query = ""] = request.url.split("?", 2);
  const canonical = [
    request.method,
    canonicalPath(path),
    canonicalQuery(query),
    names.map((name) => `${name}:${header(request.headers, name).trim().replace(/\s+/g, " ")}\n`).join(""),
    names.join(";"),
    payloadHash,
  ].join("\n");
  const scope = `${date}/${keys.region}/${keys.service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n");
  const key = hmac(
    hmac(hmac(hmac(`AWS4${keys.secretAccessKey}`, date), keys.region), keys.service),
    "aws4_request",
  );
  return hmac(key, toSign).toString("hex");
}

/**
 * The headers a SigV4 client adds to `request` (x-amz-date, x-amz-content-sha256, the session
 * token, Authorization), signing `host` and every `x-amz-*` header: for tests of the scripted endpoint.
 */
export function signSigV4(request: SignedRequest, keys: SigV4Keys, now = new Date()): Record<string, string> {
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
  const date = amzDate.slice(0, 8);
  const payloadHash = sha256(request.body);
  const added: Record<string, string> = {
    "x-amz-date": amzDate,
    "x-amz-content-sha256": payloadHash,
    ...(keys.sessionToken === undefined ? {} : { "x-amz-security-token": keys.sessionToken }),
  };
  const headers = { ...request.headers, ...added };
  const names = Object.keys(headers)
    .map((name) => name.toLowerCase())
    .filter((name) => name === "host" || name.startsWith("x-amz-"))
    .sort();
  const signature = signatureOf({ ...request, headers }, keys, names, amzDate, date, payloadHash);
  return {
    ...added,
    authorization: `AWS4-HMAC-SHA256 Credential=${keys.accessKeyId}/${date}/${keys.region}/${keys.service}/aws4_request, SignedHeaders=${names.join(";")}, Signature=${signature}`,
  };
}

export function verifySigV4(request: SignedRequest, keys: SigV4Keys): SigV4Result {
  const refuse = (status: 400 | 403, type: string, message: string): SigV4Result => ({
    ok: false,
    status,
    type,
    message,
  });
  const auth = AUTH.exec(header(request.headers, "authorization"));
  if (!auth) return refuse(403, "MissingAuthenticationTokenException", "Missing Authentication Token");
  const [, accessKeyId, date, region, service, signedHeaders = "", signature = ""] = auth;
  if (accessKeyId !== keys.accessKeyId)
    return refuse(
      403,
      "UnrecognizedClientException",
      "The security token included in the request is invalid.",
    );
  if (region !== keys.region || service !== keys.service)
    return refuse(
      403,
      "InvalidSignatureException",
      `Credential should be scoped to a valid region and service: expected ${keys.region}/${keys.service}, got ${region}/${service}.`,
    );
  const amzDate = header(request.headers, "x-amz-date");
  if (!amzDate.startsWith(date ?? "-"))
    return refuse(
      403,
      "InvalidSignatureException",
      "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP.",
    );
  if (
    keys.sessionToken !== undefined &&
    header(request.headers, "x-amz-security-token") !== keys.sessionToken
  )
    return refuse(
      403,
      "UnrecognizedClientException",
      "The security token included in the request is invalid.",
    );
  const names = signedHeaders.split(";");
  if (!names.includes("host"))
    return refuse(403, "InvalidSignatureException", "'Host' must be a signed header.");
  const payloadHash = sha256(request.body);
  const declared = header(request.headers, "x-amz-content-sha256");
  if (declared !== "" && declared !== payloadHash)
    return refuse(
      400,
      "ValidationException",
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
    );
  const expected = Buffer.from(signatureOf(request, keys, names, amzDate, date ?? "", payloadHash));
  if (!timingSafeEqual(expected, Buffer.from(signature)))
    return refuse(
      403,
      "InvalidSignatureException",
      "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
    );
  return { ok: true };
}
