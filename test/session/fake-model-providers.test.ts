import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { decodeEventStream } from "../support/aws-event-stream.ts";
import { signSigV4 } from "../support/aws-sigv4.ts";
import type { FakeBedrock, FakeVertex } from "../support/fake-model-providers.ts";
import { startFakeModelServer, type FakeModelServer } from "../support/fake-model-server.ts";

/**
 * The scripted Bedrock and Vertex AI endpoints refuse what the real ones would; the e2e run
 * (test/e2e/cloud-providers.test.ts) shows the real Claude Code getting through them.
 */
const BEDROCK: FakeBedrock = {
  kind: "bedrock",
  region: "us-east-1",
  accessKeyId: "ASIAUNITTEST",
  secretAccessKey: "unit-secret",
  sessionToken: "unit-session",
};
const VERTEX: FakeVertex = {
  kind: "vertex",
  project: "p",
  region: "us-east5",
  workloadIdentityProvider: "projects/1/locations/global/workloadIdentityPools/gh/providers/gh",
  serviceAccount: "loom@p.iam.gserviceaccount.com",
  idTokenRequestToken: "request-token",
  githubIdToken: "github-oidc",
  federatedToken: "federated",
  accessToken: "ya29.unit",
};
const TURNS = { turns: [{ blocks: [{ type: "text" as const, text: "hello" }] }] };
const BODY = {
  anthropic_version: "bedrock-2023-05-31",
  max_tokens: 10,
  messages: [{ role: "user", content: "hi" }],
  tools: [{ name: "Write", input_schema: { type: "object" } }],
};

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

function send(
  server: FakeModelServer,
  method: string,
  url: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${url}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("the scripted Bedrock endpoint", () => {
  let server: FakeModelServer;
  before(async () => {
    server = await startFakeModelServer({ ...TURNS, provider: BEDROCK });
  });
  after(() => server.close());

  const invoke = (
    keys: Partial<FakeBedrock> & { region?: string },
    body = Buffer.from(JSON.stringify(BODY)),
  ) => {
    const url = "/model/us.anthropic.claude-opus-4-6-v1/invoke-with-response-stream";
    const headers = { host: `127.0.0.1:${server.port}`, "content-type": "application/json" };
    const signed = signSigV4(
      { method: "POST", url, headers, body: Buffer.from(JSON.stringify(BODY)) },
      { ...BEDROCK, ...keys, service: "bedrock" },
    );
    return send(server, "POST", url, { ...headers, ...signed }, body);
  };

  it("a request signed with the expected keys streams the turn as event-stream chunks", async () => {
    const answer = await invoke({});
    assert.equal(answer.status, 200, answer.body.toString());
    assert.equal(answer.headers["content-type"], "application/vnd.amazon.eventstream");
    const events = decodeEventStream(answer.body).map((message) => {
      assert.equal(message.headers[":event-type"], "chunk");
      const { bytes } = JSON.parse(message.payload.toString("utf8")) as { bytes: string };
      return JSON.parse(Buffer.from(bytes, "base64").toString("utf8")) as { type: string };
    });
    assert.equal(events[0]?.type, "message_start");
    assert.equal(events.at(-1)?.type, "message_stop");
    assert.equal(server.requests.at(-1)?.model, "us.anthropic.claude-opus-4-6-v1");
  });

  const refusals: [string, Partial<FakeBedrock>, number, string][] = [
    ["another secret key", { secretAccessKey: "other" }, 403, "InvalidSignatureException"],
    ["another access key", { accessKeyId: "ASIAOTHER" }, 403, "UnrecognizedClientException"],
    ["another session token", { sessionToken: "other" }, 403, "UnrecognizedClientException"],
    ["another region", { region: "eu-west-1" }, 403, "InvalidSignatureException"],
  ];
  for (const [what, keys, status, type] of refusals)
    it(`refuses ${what} with Bedrock's error shape`, async () => {
      const answer = await invoke(keys);
      assert.equal(answer.status, status);
      assert.match(String(answer.headers["x-amzn-errortype"]), new RegExp(`^${type}:`));
      assert.ok((JSON.parse(answer.body.toString("utf8")) as { message: string }).message);
    });

  it("refuses a body changed after signing, and an unsigned request", async () => {
    assert.equal((await invoke({}, Buffer.from(JSON.stringify({ ...BODY, max_tokens: 11 })))).status, 400);
    const unsigned = await send(server, "GET", "/inference-profiles", {}, Buffer.alloc(0));
    assert.equal(unsigned.status, 403);
    assert.match(String(unsigned.headers["x-amzn-errortype"]), /^MissingAuthenticationTokenException:/);
  });
});

describe("the scripted Vertex AI endpoint and its token exchange", () => {
  let server: FakeModelServer;
  before(async () => {
    server = await startFakeModelServer({ ...TURNS, provider: VERTEX });
  });
  after(() => server.close());

  const json = (answer: Answer): Record<string, unknown> =>
    JSON.parse(answer.body.toString("utf8")) as Record<string, unknown>;
  const predict = `/v1/projects/p/locations/us-east5/publishers/anthropic/models/claude-opus-4-6:streamRawPredict`;
  const body = Buffer.from(JSON.stringify({ ...BODY, anthropic_version: "vertex-2023-10-16", stream: true }));

  it("hands out each token only for the previous one, and streams for the last", async () => {
    const oidc = await send(
      server,
      "GET",
      "/github-oidc/token?audience=x",
      { authorization: "Bearer request-token" },
      Buffer.alloc(0),
    );
    assert.equal(json(oidc)["value"], "github-oidc");
    const form = new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      audience: `//iam.googleapis.com/${VERTEX.workloadIdentityProvider}`,
      subject_token: "github-oidc",
    });
    const sts = await send(
      server,
      "POST",
      "/sts/v1/token",
      { "content-type": "application/x-www-form-urlencoded" },
      Buffer.from(form.toString()),
    );
    assert.equal(json(sts)["access_token"], "federated");
    const iam = `/iamcredentials/v1/projects/-/serviceAccounts/${VERTEX.serviceAccount}:generateAccessToken`;
    const token = await send(server, "POST", iam, { authorization: "Bearer federated" }, Buffer.from("{}"));
    assert.equal(json(token)["accessToken"], "ya29.unit");
    const answer = await send(server, "POST", predict, { authorization: "Bearer ya29.unit" }, body);
    assert.equal(answer.status, 200);
    assert.match(answer.body.toString("utf8"), /^event: message_start/);
    assert.equal(server.requests.at(-1)?.model, "claude-opus-4-6");
  });

  it("refuses a wrong token at each step with Google's error shapes", async () => {
    assert.equal(
      (await send(server, "GET", "/github-oidc/token", { authorization: "Bearer x" }, Buffer.alloc(0)))
        .status,
      401,
    );
    const sts = await send(server, "POST", "/sts/v1/token", {}, Buffer.from("subject_token=forged"));
    assert.equal(json(sts)["error"], "invalid_grant");
    const iam = `/iamcredentials/v1/projects/-/serviceAccounts/other@p.iam.gserviceaccount.com:generateAccessToken`;
    assert.equal(
      (await send(server, "POST", iam, { authorization: "Bearer federated" }, Buffer.from("{}"))).status,
      403,
    );
    const predicted = await send(server, "POST", predict, { authorization: "Bearer federated" }, body);
    assert.equal(predicted.status, 401);
    assert.equal((json(predicted)["error"] as { status: string }).status, "UNAUTHENTICATED");
    const elsewhere = predict.replace("/projects/p/", "/projects/q/");
    assert.equal(
      (await send(server, "POST", elsewhere, { authorization: "Bearer ya29.unit" }, body)).status,
      404,
    );
  });
});
