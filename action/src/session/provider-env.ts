import { z } from "zod";

/**
 * Where Claude Code gets its model: an Anthropic API key, a Claude Code OAuth token
 * (`claude setup-token`), Amazon Bedrock or Google Vertex AI. Variable names from Claude Code's
 * docs ("Amazon Bedrock", "Google Vertex AI", "Authentication"): `CLAUDE_CODE_USE_BEDROCK=1` with
 * `AWS_REGION` (required, not read from ~/.aws/config) and the AWS SDK's credential variables;
 * `CLAUDE_CODE_USE_VERTEX=1` with `CLOUD_ML_REGION`, `ANTHROPIC_VERTEX_PROJECT_ID` and Google's
 * Application Default Credentials (`GOOGLE_APPLICATION_CREDENTIALS`). The provider's endpoint (an
 * LLM gateway, a private endpoint) comes from the input `aws_bedrock_base_url` /
 * `gcp_vertex_base_url`, else the runner's `ANTHROPIC_BEDROCK_BASE_URL` / `ANTHROPIC_VERTEX_BASE_URL`.
 */
export const PROVIDERS = ["anthropic", "oauth", "bedrock", "vertex"] as const;
export type Provider = (typeof PROVIDERS)[number];
/** The providers that authenticate through GitHub's OIDC token (loom-stage-oidc.yml). */
export const OIDC_PROVIDERS = ["bedrock", "vertex"] as const satisfies readonly Provider[];

type Env = Readonly<Record<string, string | undefined>>;

/** Action inputs arrive as strings; an empty (or blank) one means "not set". */
const unset = (value: unknown): unknown =>
  typeof value === "string" && value.trim() === "" ? undefined : value;
const optionalText = z.preprocess(unset, z.string().trim().optional());

/** The action inputs that choose and configure the provider (see action/action.yml). */
/** An endpoint: an http(s) URL, or not set. */
const optionalUrl = z.preprocess(
  unset,
  z
    .string()
    .trim()
    .refine((value) => /^https?:\/\/[^\s/]+/.test(value), "an http:// or https:// URL")
    .optional(),
);

export const ProviderInputs = z.object({
  provider: z.preprocess(unset, z.enum(PROVIDERS).default("anthropic")),
  aws_region: optionalText,
  gcp_project: optionalText,
  gcp_region: optionalText,
  aws_bedrock_base_url: optionalUrl,
  gcp_vertex_base_url: optionalUrl,
});
export type ProviderInputs = z.infer<typeof ProviderInputs>;

/**
 * Variables that choose a model provider or carry its credentials. None is inherited from the
 * runner (a self-hosted runner may hold AWS keys for other work): only the chosen provider's
 * variables reach Claude Code, and the checks get none.
 */
const PROVIDER_VARIABLES: ReadonlySet<string> = new Set([
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "CLAUDE_CODE_USE_BEDROCK",
  "CLAUDE_CODE_USE_VERTEX",
  "CLAUDE_CODE_USE_FOUNDRY",
  "CLAUDE_CODE_SKIP_BEDROCK_AUTH",
  "CLAUDE_CODE_SKIP_VERTEX_AUTH",
  "ANTHROPIC_BEDROCK_BASE_URL",
  "ANTHROPIC_VERTEX_BASE_URL",
  "ANTHROPIC_VERTEX_PROJECT_ID",
  "CLOUD_ML_REGION",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE",
  "GOOGLE_GHA_CREDS_PATH",
]);

export function isProviderVariable(name: string): boolean {
  return PROVIDER_VARIABLES.has(name) || name.startsWith("AWS_");
}

/** Values of provider variables that are secrets: redacted wherever they could leave the job. */
const SECRET_VARIABLES = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_BEARER_TOKEN_BEDROCK",
] as const;

export function listProviderSecrets(env: Env): string[] {
  return SECRET_VARIABLES.map((name) => env[name] ?? "").filter((value) => value !== "");
}

/** A base-URL input given for another provider than the chosen one: never ignored silently. */
function misplacedBaseUrls(inputs: ProviderInputs): string[] {
  const given: [string, string | undefined, Provider][] = [
    ["aws-bedrock-base-url", inputs.aws_bedrock_base_url, "bedrock"],
    ["gcp-vertex-base-url", inputs.gcp_vertex_base_url, "vertex"],
  ];
  return given
    .filter(([, value, owner]) => value !== undefined && owner !== inputs.provider)
    .map(
      ([name, , owner]) =>
        `the workflow input ${name} is for provider "${owner}", not "${inputs.provider}": remove it or set provider: ${owner}`,
    );
}

export type ProviderEnv =
  | { ok: true; provider: Provider; env: Record<string, string> }
  | { ok: false; provider: Provider; problems: string[] };

const OIDC_HINT =
  "Bedrock and Vertex AI run through loom's loom-stage-oidc.yml, whose run job may request id-token: write (see examples/loom-bedrock.yml, examples/loom-vertex.yml)";

/**
 * The chosen provider's variables for Claude Code's environment, read from the step's environment
 * and the action inputs; or every missing piece, named as the workflow input or secret to set.
 */
export function resolveProviderEnv(
  inputs: ProviderInputs,
  env: Env,
  fileExists: (path: string) => boolean,
): ProviderEnv {
  const { provider } = inputs;
  const problems: string[] = [];
  const take = (name: string, missing: string): string => {
    const value = env[name] ?? "";
    if (value === "") problems.push(missing);
    return value;
  };
  // The chosen provider's endpoint (a gateway or a private endpoint): the workflow input, else the
  // runner's variable; only that provider's, never another provider's.
  const baseUrl = (name: string, input: string | undefined): Record<string, string> => {
    const value = input ?? (env[name] ?? "").trim();
    return value === "" ? {} : { [name]: value };
  };
  problems.push(...misplacedBaseUrls(inputs));
  const result = (vars: Record<string, string>): ProviderEnv =>
    problems.length === 0 ? { ok: true, provider, env: vars } : { ok: false, provider, problems };
  switch (provider) {
    case "anthropic":
      return result({
        ANTHROPIC_API_KEY: take(
          "ANTHROPIC_API_KEY",
          'provider "anthropic" needs the secret ANTHROPIC_API_KEY: add it to the repository\'s Actions secrets and pass it in the caller workflow (secrets: { ANTHROPIC_API_KEY: ... }); with a Claude subscription use provider "oauth" and CLAUDE_CODE_OAUTH_TOKEN instead',
        ),
      });
    case "oauth":
      return result({
        CLAUDE_CODE_OAUTH_TOKEN: take(
          "CLAUDE_CODE_OAUTH_TOKEN",
          'provider "oauth" needs the secret CLAUDE_CODE_OAUTH_TOKEN (made by `claude setup-token`): add it to the repository\'s Actions secrets and pass it in the caller workflow (secrets: { CLAUDE_CODE_OAUTH_TOKEN: ... })',
        ),
      });
    case "bedrock": {
      if (inputs.aws_region === undefined)
        problems.push('provider "bedrock" needs the workflow input aws-region (e.g. us-east-1)');
      const noKeys = `provider "bedrock" found no AWS credentials in the job (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN from aws-actions/configure-aws-credentials): ${OIDC_HINT}`;
      const keys = {
        AWS_ACCESS_KEY_ID: take("AWS_ACCESS_KEY_ID", noKeys),
        AWS_SECRET_ACCESS_KEY: take("AWS_SECRET_ACCESS_KEY", noKeys),
        AWS_SESSION_TOKEN: take("AWS_SESSION_TOKEN", noKeys),
      };
      return result({
        CLAUDE_CODE_USE_BEDROCK: "1",
        AWS_REGION: inputs.aws_region ?? "",
        ...keys,
        ...baseUrl("ANTHROPIC_BEDROCK_BASE_URL", inputs.aws_bedrock_base_url),
      });
    }
    case "vertex": {
      if (inputs.gcp_region === undefined)
        problems.push(
          'provider "vertex" needs the workflow input gcp-region (the Vertex AI region, e.g. us-east5, or global)',
        );
      const project = inputs.gcp_project ?? env.GOOGLE_CLOUD_PROJECT ?? "";
      if (project === "")
        problems.push('provider "vertex" needs the workflow input gcp-project (the Google Cloud project id)');
      const credentials = env.GOOGLE_APPLICATION_CREDENTIALS ?? "";
      if (credentials === "" || !fileExists(credentials))
        problems.push(
          `provider "vertex" found no Google credentials file in the job (GOOGLE_APPLICATION_CREDENTIALS from google-github-actions/auth${credentials === "" ? "" : ` points at a missing file`}): ${OIDC_HINT}`,
        );
      return result({
        CLAUDE_CODE_USE_VERTEX: "1",
        CLOUD_ML_REGION: inputs.gcp_region ?? "",
        ANTHROPIC_VERTEX_PROJECT_ID: project,
        GOOGLE_APPLICATION_CREDENTIALS: credentials,
        // gcloud, if the session runs it, uses the same federated identity.
        CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE: credentials,
        // google-auth-library asks for the project on every client it makes: without this variable
        // it asks Cloud Resource Manager and the GCE metadata server (measured with Claude Code
        // 2.1.197), and a refused lookup fails the session's model requests.
        GOOGLE_CLOUD_PROJECT: project,
        ...baseUrl("ANTHROPIC_VERTEX_BASE_URL", inputs.gcp_vertex_base_url),
      });
    }
  }
}

/** The preflight's inputs: the provider settings of loom-stage-oidc.yml, checked before any login. */
export const CloudProviderInputs = ProviderInputs.extend({
  aws_role_arn: optionalText,
  gcp_workload_identity_provider: optionalText,
  gcp_service_account: optionalText,
});
export type CloudProviderInputs = z.infer<typeof CloudProviderInputs>;

/**
 * What loom-stage-oidc.yml's workflow inputs lack for the chosen cloud provider, before its login
 * step runs: a misspelt or missing setting fails the job with the input's name, not with a cloud
 * SDK error several steps later.
 */
export function checkCloudProviderInputs(inputs: CloudProviderInputs): string[] {
  const missing = (name: string, what: string): string =>
    `provider "${inputs.provider}" needs the workflow input ${name} (${what})`;
  switch (inputs.provider) {
    case "anthropic":
    case "oauth":
      return [
        `provider "${inputs.provider}" uses loom-stage.yml (the model key as a secret, no id-token); loom-stage-oidc.yml runs "bedrock" and "vertex"`,
      ];
    case "bedrock":
      return [
        ...misplacedBaseUrls(inputs),
        ...(inputs.aws_region === undefined ? [missing("aws-region", "e.g. us-east-1")] : []),
        ...(inputs.aws_role_arn === undefined
          ? [missing("aws-role-arn", "the IAM role GitHub's OIDC token assumes")]
          : []),
      ];
    case "vertex":
      return [
        ...misplacedBaseUrls(inputs),
        ...(inputs.gcp_workload_identity_provider === undefined
          ? [
              missing(
                "gcp-workload-identity-provider",
                "projects/<number>/locations/global/workloadIdentityPools/<pool>/providers/<provider>",
              ),
            ]
          : []),
        ...(inputs.gcp_service_account === undefined
          ? [missing("gcp-service-account", "the service account to impersonate")]
          : []),
        ...(inputs.gcp_region === undefined ? [missing("gcp-region", "e.g. us-east5, or global")] : []),
      ];
  }
}
