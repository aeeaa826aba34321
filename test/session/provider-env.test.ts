import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  checkCloudProviderInputs,
  CloudProviderInputs,
  isProviderVariable,
  listProviderSecrets,
  ProviderInputs,
  resolveProviderEnv,
} from "../../action/src/session/provider-env.ts";
import { splitEnv } from "../../action/src/main.ts";

/** A runner's step environment holding every provider's variables at once. */
const RUNNER = {
  PATH: "/usr/bin",
  HOME: "/home/runner",
  GITHUB_REPOSITORY: "o/r",
  ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
  ANTHROPIC_API_KEY: "sk-ant-api-key",
  ANTHROPIC_AUTH_TOKEN: "bearer-token",
  CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-token",
  CLAUDE_CODE_USE_VERTEX: "1",
  AWS_ACCESS_KEY_ID: "AKIAEXAMPLE",
  AWS_SECRET_ACCESS_KEY: "aws-secret",
  AWS_SESSION_TOKEN: "aws-session",
  AWS_REGION: "eu-west-1",
  AWS_PROFILE: "runner-profile",
  GOOGLE_APPLICATION_CREDENTIALS: "/tmp/_github_home/gha-creds-1.json",
  GOOGLE_CLOUD_PROJECT: "from-auth",
  GITHUB_TOKEN: "ghs_token",
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: "oidc-request",
  INPUT_GITHUB_TOKEN: "ghs_token",
};
const exists = (path: string): boolean => path === RUNNER.GOOGLE_APPLICATION_CREDENTIALS;
const inputs = (raw: Record<string, string>): ProviderInputs => ProviderInputs.parse(raw);

function sessionFor(raw: Record<string, string>, env: Record<string, string> = RUNNER) {
  const provider = resolveProviderEnv(inputs(raw), env, exists);
  assert.ok(provider.ok, provider.ok ? "" : provider.problems.join("; "));
  return splitEnv(env, provider.env);
}

/** The session's variables that choose a provider or carry a credential. */
const providerPart = (env: Record<string, string | undefined>): Record<string, string | undefined> =>
  Object.fromEntries(Object.entries(env).filter(([name]) => isProviderVariable(name)));

describe("the model provider's variables reach Claude Code, and nothing else does", () => {
  it("anthropic (the default): the API key only", () => {
    const { sessionEnv, checkEnv } = sessionFor({ provider: "" });
    assert.deepEqual(providerPart(sessionEnv), { ANTHROPIC_API_KEY: "sk-ant-api-key" });
    assert.equal(sessionEnv.ANTHROPIC_BASE_URL, "http://127.0.0.1:9", "not a credential: kept");
    assert.deepEqual(providerPart(checkEnv), {});
  });

  it("oauth: the OAuth token only, no API key that would win over it", () => {
    const { sessionEnv, checkEnv } = sessionFor({ provider: "oauth" });
    assert.deepEqual(providerPart(sessionEnv), { CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-token" });
    assert.deepEqual(providerPart(checkEnv), {});
  });

  it("bedrock: the switch, the region from the input and the OIDC session's keys; no profile, no Anthropic key", () => {
    const { sessionEnv, checkEnv } = sessionFor({ provider: "bedrock", aws_region: "us-east-1" });
    assert.deepEqual(providerPart(sessionEnv), {
      CLAUDE_CODE_USE_BEDROCK: "1",
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "AKIAEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "aws-secret",
      AWS_SESSION_TOKEN: "aws-session",
    });
    assert.deepEqual(providerPart(checkEnv), {});
  });

  it("vertex: the switch, region, project and the federated credentials file", () => {
    const { sessionEnv, checkEnv } = sessionFor({
      provider: "vertex",
      gcp_region: "us-east5",
      gcp_project: "my-project",
    });
    assert.deepEqual(providerPart(sessionEnv), {
      CLAUDE_CODE_USE_VERTEX: "1",
      CLOUD_ML_REGION: "us-east5",
      ANTHROPIC_VERTEX_PROJECT_ID: "my-project",
      GOOGLE_APPLICATION_CREDENTIALS: RUNNER.GOOGLE_APPLICATION_CREDENTIALS,
      CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE: RUNNER.GOOGLE_APPLICATION_CREDENTIALS,
    });
    assert.deepEqual(providerPart(checkEnv), {});
  });

  it("vertex without gcp-project uses the project google-github-actions/auth exported", () => {
    const { sessionEnv } = sessionFor({ provider: "vertex", gcp_region: "global" });
    assert.equal(sessionEnv.ANTHROPIC_VERTEX_PROJECT_ID, "from-auth");
  });

  it("vertex: google-auth-library gets the project too (no Resource Manager or metadata lookup)", () => {
    const { sessionEnv } = sessionFor({
      provider: "vertex",
      gcp_region: "us-east5",
      gcp_project: "my-project",
    });
    assert.equal(sessionEnv.GOOGLE_CLOUD_PROJECT, "my-project");
  });

  it("a runner's base URL reaches the session for its own provider only", () => {
    const env = {
      ...RUNNER,
      ANTHROPIC_BEDROCK_BASE_URL: "https://bedrock.gateway.example",
      ANTHROPIC_VERTEX_BASE_URL: "https://vertex.gateway.example/v1",
    };
    const bedrock = sessionFor({ provider: "bedrock", aws_region: "us-east-1" }, env);
    assert.equal(bedrock.sessionEnv.ANTHROPIC_BEDROCK_BASE_URL, "https://bedrock.gateway.example");
    assert.equal(bedrock.sessionEnv.ANTHROPIC_VERTEX_BASE_URL, undefined);
    const vertex = sessionFor({ provider: "vertex", gcp_region: "us-east5", gcp_project: "p" }, env);
    assert.equal(vertex.sessionEnv.ANTHROPIC_VERTEX_BASE_URL, "https://vertex.gateway.example/v1");
    assert.equal(vertex.sessionEnv.ANTHROPIC_BEDROCK_BASE_URL, undefined);
    for (const { checkEnv } of [bedrock, vertex]) {
      assert.equal(checkEnv.ANTHROPIC_BEDROCK_BASE_URL, undefined);
      assert.equal(checkEnv.ANTHROPIC_VERTEX_BASE_URL, undefined);
    }
  });

  it("the workflow input aws-bedrock-base-url / gcp-vertex-base-url wins over the runner's", () => {
    const env = { ...RUNNER, ANTHROPIC_BEDROCK_BASE_URL: "https://runner.example" };
    const { sessionEnv } = sessionFor(
      {
        provider: "bedrock",
        aws_region: "us-east-1",
        aws_bedrock_base_url: " https://gateway.example/bedrock ",
      },
      env,
    );
    assert.equal(sessionEnv.ANTHROPIC_BEDROCK_BASE_URL, "https://gateway.example/bedrock");
    const vertex = sessionFor({
      provider: "vertex",
      gcp_region: "us-east5",
      gcp_project: "p",
      gcp_vertex_base_url: "https://gateway.example/vertex/v1",
    });
    assert.equal(vertex.sessionEnv.ANTHROPIC_VERTEX_BASE_URL, "https://gateway.example/vertex/v1");
    assert.equal(vertex.checkEnv.ANTHROPIC_VERTEX_BASE_URL, undefined);
  });

  for (const provider of ["anthropic", "oauth", "bedrock", "vertex"]) {
    it(`${provider}: neither the session nor the checks get a runner token`, () => {
      const { sessionEnv, checkEnv } = sessionFor({
        provider,
        aws_region: "us-east-1",
        gcp_region: "global",
      });
      for (const env of [sessionEnv, checkEnv]) {
        for (const name of ["GITHUB_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "INPUT_GITHUB_TOKEN"])
          assert.equal(name in env, false, name);
        assert.equal(env.PATH, "/usr/bin");
        assert.equal(env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, "1");
      }
    });
  }
});

describe("a provider that cannot work fails before the session, naming what to set", () => {
  const problems = (raw: Record<string, string>, env: Record<string, string>): string[] => {
    const provider = resolveProviderEnv(inputs(raw), env, exists);
    assert.equal(provider.ok, false);
    return provider.ok ? [] : provider.problems;
  };
  const bare = { PATH: "/usr/bin", ANTHROPIC_API_KEY: "" };

  it("anthropic without a key names the secret", () => {
    assert.match(problems({}, bare).join("\n"), /needs the secret ANTHROPIC_API_KEY/);
  });

  it("oauth without a token names the secret and claude setup-token", () => {
    assert.match(
      problems({ provider: "oauth" }, { ...bare, ANTHROPIC_API_KEY: "k" }).join("\n"),
      /CLAUDE_CODE_OAUTH_TOKEN \(made by `claude setup-token`\)/,
    );
  });

  it("bedrock without aws-region, and without the OIDC login, names both", () => {
    const found = problems({ provider: "bedrock" }, bare).join("\n");
    assert.match(found, /workflow input aws-region/);
    assert.match(found, /no AWS credentials.*loom-stage-oidc\.yml/);
  });

  it("vertex without region, project or credentials file names each", () => {
    const found = problems(
      { provider: "vertex" },
      { ...bare, GOOGLE_APPLICATION_CREDENTIALS: "/nowhere.json" },
    ).join("\n");
    assert.match(found, /workflow input gcp-region/);
    assert.match(found, /workflow input gcp-project/);
    assert.match(found, /points at a missing file/);
  });

  it("an unknown provider is an input error", () => {
    assert.equal(ProviderInputs.safeParse({ provider: "openai" }).success, false);
  });

  it("a base URL that is not an http(s) URL is an input error; one for the other provider is named", () => {
    assert.equal(
      ProviderInputs.safeParse({ provider: "bedrock", aws_bedrock_base_url: "gateway" }).success,
      false,
    );
    const found = problems(
      { provider: "bedrock", aws_region: "us-east-1", gcp_vertex_base_url: "https://gateway.example/v1" },
      RUNNER,
    );
    assert.deepEqual(found, [
      'the workflow input gcp-vertex-base-url is for provider "vertex", not "bedrock": remove it or set provider: vertex',
    ]);
  });
});

describe("the OIDC workflow's preflight", () => {
  const check = (raw: Record<string, string>): string[] =>
    checkCloudProviderInputs(CloudProviderInputs.parse(raw));

  it("passes a complete bedrock or vertex configuration", () => {
    assert.deepEqual(
      check({ provider: "bedrock", aws_region: "us-east-1", aws_role_arn: "arn:aws:iam::1:role/r" }),
      [],
    );
    assert.deepEqual(
      check({
        provider: "vertex",
        gcp_workload_identity_provider: "projects/1/locations/global/workloadIdentityPools/p/providers/g",
        gcp_service_account: "loom@p.iam.gserviceaccount.com",
        gcp_region: "us-east5",
      }),
      [],
    );
  });

  it("names a base URL given for the other provider before any login", () => {
    assert.match(
      check({
        provider: "vertex",
        gcp_workload_identity_provider: "projects/1/locations/global/workloadIdentityPools/p/providers/g",
        gcp_service_account: "loom@p.iam.gserviceaccount.com",
        gcp_region: "us-east5",
        aws_bedrock_base_url: "https://gateway.example",
      }).join("\n"),
      /aws-bedrock-base-url is for provider "bedrock", not "vertex"/,
    );
  });

  it("names every missing workflow input, and sends key providers to loom-stage.yml", () => {
    assert.deepEqual(
      check({ provider: "bedrock", aws_region: " " }).map((p) => /input (\S+)/.exec(p)?.[1]),
      ["aws-region", "aws-role-arn"],
    );
    assert.deepEqual(
      check({ provider: "vertex" }).map((p) => /input (\S+)/.exec(p)?.[1]),
      ["gcp-workload-identity-provider", "gcp-service-account", "gcp-region"],
    );
    assert.match(check({ provider: "anthropic" }).join(""), /uses loom-stage\.yml/);
  });
});

it("every provider secret in the step's environment is listed for redaction", () => {
  assert.deepEqual(listProviderSecrets(RUNNER).sort(), [
    "aws-secret",
    "aws-session",
    "bearer-token",
    "sk-ant-api-key",
    "sk-ant-oat01-token",
  ]);
});
