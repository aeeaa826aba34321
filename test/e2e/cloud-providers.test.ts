import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { readZip } from "../../app/github/read-zip.ts";
import type { PullRecord } from "../emulator/emulator-state.ts";
import { verifySigV4 } from "../support/aws-sigv4.ts";
import type { FakeBedrock, FakeVertex } from "../support/fake-model-providers.ts";
import type { RecordedRequest } from "../support/fake-model-server.ts";
import { startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, writeFiles } from "./model-script.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const PLAN_PATH = "doc/plans/PLAN-clouds.md";
/** One stage per provider; `model: opus` is the alias each provider maps to its own model id. */
const PLAN = planText(
  "Clouds",
  `
- id: bedrock
  name: On Bedrock
  description: Write bedrock.txt
  model: opus
  acceptance: ["grep -q bedrock bedrock.txt"]
- id: vertex
  name: On Vertex AI
  description: Write vertex.txt
  model: opus
  acceptance: ["grep -q vertex vertex.txt"]
`,
);

/**
 * examples/loom-vertex.yml with examples/loom-bedrock.yml's inputs added, the provider chosen by the
 * stage: both providers in one repository, one App, one plan. Bedrock is reached through the
 * caller's `aws-bedrock-base-url` (a gateway at `gateway`), Vertex AI through the runner's
 * ANTHROPIC_VERTEX_BASE_URL: the two ways docs/runners-and-providers.md gives (a base URL for the
 * other provider fails the job, so the vertex stage gets none).
 */
const caller = (gateway: string): string =>
  readFileSync(path.join(ROOT, "examples/loom-vertex.yml"), "utf8")
    .replace("provider: vertex", "provider: ${{ inputs.stage_id == 'vertex' && 'vertex' || 'bedrock' }}")
    .replace(
      /^( +)gcp-region: us-east5$/m,
      `$1gcp-region: us-east5\n$1aws-region: us-east-1\n$1aws-role-arn: arn:aws:iam::123456789012:role/loom-bedrock\n$1aws-bedrock-base-url: \${{ inputs.stage_id != 'vertex' && '${gateway}' || '' }}`,
    );

/**
 * An LLM gateway in front of the Bedrock run's scripted endpoint: forwards every request as it
 * came (the SigV4 signature covers its headers), and counts them.
 */
async function startGateway(): Promise<{
  url: string;
  target: { url: string };
  seen: string[];
  close(): Promise<void>;
}> {
  const target = { url: "" };
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method ?? ""} ${req.url ?? ""}`);
    const upstream = http.request(
      `${target.url}${req.url ?? "/"}`,
      { method: req.method ?? "GET", headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    target,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What the AWS login hands the job; the scripted Bedrock checks the signature made with them. */
const BEDROCK: FakeBedrock = {
  kind: "bedrock",
  region: "us-east-1",
  accessKeyId: "ASIAE2ELOOMBEDROCK01",
  secretAccessKey: "aws-secret-e2e-5Qz8wLm2Vt9Rk4Xp7Nc3",
  sessionToken: "aws-session-e2e-Hj6Fd1Sa8Gq0Wy5Ue2Ti",
};
/** What examples/loom-vertex.yml names, and the tokens of the exchange the binary performs. */
const VERTEX: FakeVertex = {
  kind: "vertex",
  project: "my-project",
  region: "us-east5",
  workloadIdentityProvider:
    "projects/123456789/locations/global/workloadIdentityPools/github/providers/github",
  serviceAccount: "loom@my-project.iam.gserviceaccount.com",
  idTokenRequestToken: "oidc-request-e2e-Lp3Mn7Bv1Cx9Za5Qw2Er",
  githubIdToken: "eyJhbGciOiJSUzI1NiJ9.e2e-github-oidc.Kt4Ny8Ub6Vi2Oc0Pd3Ze",
  federatedToken: "sts-federated-e2e-Rm5Tq9Wx3Yb7Nd1Fg6Hj",
  accessToken: "ya29.e2e-vertex-access-Gs2Kl8Ph4Jw6Xc0Vb9Mn",
};
const SECRETS = [
  BEDROCK.secretAccessKey,
  BEDROCK.sessionToken,
  VERTEX.idTokenRequestToken,
  VERTEX.githubIdToken,
  VERTEX.federatedToken,
  VERTEX.accessToken,
];

describe(
  "Bedrock and Vertex AI: the real Claude Code reaches scripted provider endpoints with the credentials the OIDC logins handed out",
  { timeout: 200_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let gateway: Awaited<ReturnType<typeof startGateway>>;
    const modelRequests = new Map<string, RecordedRequest[]>();
    const runOf = new Map<number, string>();

    before(async () => {
      gateway = await startGateway();
      e2e = await startE2E({
        files: { ".github/workflows/loom.yml": caller(gateway.url) },
        script: scriptStages({
          bedrock: writeFiles({ "bedrock.txt": "bedrock\n" }),
          vertex: writeFiles({ "vertex.txt": "vertex\n" }),
        }),
        provider: (job) =>
          job.stageId === "vertex"
            ? { endpoint: VERTEX, through: "runner-env" }
            : { endpoint: BEDROCK, through: "caller" },
        onModelServer: (job, url) => {
          if (job.stageId === "bedrock") gateway.target.url = url;
        },
        onRunnerEvent: (event) => {
          if (event.type === "run.started") runOf.set(event.runId, event.job.stageId);
          if (event.type === "job.finished" && event.modelRequests)
            modelRequests.set(runOf.get(event.runId) ?? "", event.modelRequests);
        },
      });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      await e2e.waitForPlanEnd(pull, "PLAN-clouds", 2, 180_000);
    });
    after(async () => {
      await e2e?.close();
      await gateway?.close();
    });

    it("both stages pass and merge", async () => {
      const runs = await e2e.checkRuns(pull);
      for (const stage of ["bedrock", "vertex"]) {
        const run = runs.find((r) => r.name === `loom: ${stage}`);
        assert.equal(
          run?.conclusion,
          "success",
          `${stage}: ${JSON.stringify(runs.map((r) => [r.name, r.conclusion]))}\n${e2e.describe()}`,
        );
      }
      assert.equal(await e2e.readFile(pull.headRef, "bedrock.txt"), "bedrock\n");
      assert.equal(await e2e.readFile(pull.headRef, "vertex.txt"), "vertex\n");
    });

    it("Bedrock, through the caller's gateway: signed streaming invocations of the stage model's Bedrock id", () => {
      const requests = modelRequests.get("bedrock") ?? [];
      assert.equal(gateway.seen.length, requests.length, "every Bedrock request went through the gateway");
      const main = requests.filter((r) => r.kind === "main");
      assert.ok(
        main.length >= 2,
        `main requests: ${requests.map((r) => `${r.method} ${r.path}`).join(", ")}`,
      );
      for (const request of main) {
        assert.equal(request.path, "/model/us.anthropic.claude-opus-4-6-v1/invoke-with-response-stream");
        assert.match(
          String(request.headers["authorization"]),
          new RegExp(
            `^AWS4-HMAC-SHA256 Credential=${BEDROCK.accessKeyId}/\\d{8}/us-east-1/bedrock/aws4_request`,
          ),
        );
      }
      // The signature proves the secret key reached the binary: it verifies with it, and not without.
      const profiles = requests.find((r) => r.method === "GET" && r.path === "/inference-profiles");
      assert.ok(profiles, "ListInferenceProfiles");
      const signed = {
        method: "GET",
        url: `${profiles.path}?${profiles.query}`,
        headers: profiles.headers,
        body: Buffer.alloc(0),
      };
      assert.deepEqual(verifySigV4(signed, { ...BEDROCK, service: "bedrock" }), { ok: true });
      assert.equal(
        verifySigV4(signed, { ...BEDROCK, secretAccessKey: "another", service: "bedrock" }).ok,
        false,
      );
    });

    it("Vertex AI: the binary traded GitHub's OIDC token at STS and called the stage model with the service account's token", () => {
      const requests = modelRequests.get("vertex") ?? [];
      const paths = requests.map((r) => r.path);
      for (const step of [
        "/github-oidc/token",
        "/sts/v1/token",
        `/iamcredentials/v1/projects/-/serviceAccounts/${VERTEX.serviceAccount}:generateAccessToken`,
      ])
        assert.ok(paths.includes(step), `${step} in ${paths.join(", ")}`);
      const main = requests.filter((r) => r.kind === "main");
      assert.ok(main.length >= 2);
      const [runId] = [...runOf].find(([, stage]) => stage === "vertex") ?? [];
      assert.match(
        e2e.runner.logs.get(runId ?? 0)?.["run"] ?? "",
        /gha-creds-[0-9a-f]+\.json \(the Google credentials file\) is kept out of the stage's commits/,
      );
      for (const request of main) {
        assert.equal(
          request.path,
          "/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-opus-4-6:streamRawPredict",
        );
        assert.equal(request.headers["authorization"], `Bearer ${VERTEX.accessToken}`);
      }
    });

    it("no credential value leaves the job: logs, artifacts, check runs, comments, GitHub requests, git", () => {
      const places: [string, string][] = [
        ...[...e2e.runner.logs].map(([id, jobs]): [string, string] => [
          `run ${id} logs`,
          JSON.stringify(jobs),
        ]),
        ...e2e.emulator.state.artifacts.flatMap((artifact): [string, string][] => {
          const zip = readZip(artifact.zip);
          assert.ok(zip.ok);
          return [...zip.files].map(([file, data]) => [
            `artifact ${artifact.name}/${file}`,
            data.toString("utf8"),
          ]);
        }),
        ["check runs", JSON.stringify(e2e.emulator.state.checkRuns)],
        ["comments", JSON.stringify(e2e.emulator.state.comments)],
        ["requests to GitHub", JSON.stringify(e2e.emulator.requests)],
        [
          "git",
          execFileSync("git", ["-C", e2e.emulator.repo().git.dir, "log", "--all", "-p", "--format=%H %s"], {
            encoding: "utf8",
            maxBuffer: 64 * 1024 * 1024,
          }),
        ],
      ];
      for (const [where, text] of places)
        for (const secret of SECRETS) assert.ok(!text.includes(secret), `${where} holds ${secret}`);
      assert.equal(e2e.emulator.runnerErrors.length, 0);
      e2e.emulator.assertNoViolations();
    });
  },
);
