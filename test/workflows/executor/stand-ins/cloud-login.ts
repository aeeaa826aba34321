import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { StandInFailed, StandInGap, type StandIn, type StandInStep } from "./stand-ins.ts";

/*
 * The OIDC logins of loom-stage-oidc.yml: they export what the real actions export, from credentials
 * the test supplies (`ExecutorOptions.cloud`, or per run), instead of trading GitHub's OIDC token at
 * AWS STS. The Google login writes the real external_account file, so Claude Code does the token
 * exchange itself against a scripted STS (test/support/fake-model-providers.ts); the runner's machine
 * environment points Claude Code at the scripted endpoints (ANTHROPIC_BEDROCK_BASE_URL,
 * ANTHROPIC_VERTEX_BASE_URL). See test/e2e/cloud-providers.test.ts.
 */

/**
 * Like the real ones, the logins need the job's OIDC request variables, which GitHub sets only with
 * `id-token: write`.
 */
function requireIdToken(step: StandInStep, what: string): { requestUrl: string; requestToken: string } {
  const requestUrl = step.env["ACTIONS_ID_TOKEN_REQUEST_URL"] ?? "";
  const requestToken = step.env["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] ?? "";
  if (requestUrl === "" || requestToken === "")
    throw new StandInFailed(
      `${what}: Could not get ID token for authentication: no ACTIONS_ID_TOKEN_REQUEST_URL (the job has no id-token: write permission)`,
    );
  return { requestUrl, requestToken };
}

function exportAll(step: StandInStep, variables: Record<string, string>): void {
  for (const [name, value] of Object.entries(variables)) step.commands.exportVariable(name, value);
}

/**
 * The external_account file google-github-actions/auth v3 writes (its WorkloadIdentityFederationClient
 * .createCredentialsFile): GitHub's OIDC token fetched by the client with the job's request token,
 * for the audience `https://iam.googleapis.com/<provider>`, traded at STS, then impersonating the
 * service account. Only the three endpoints differ from the real file's.
 */
function federatedCredentials(
  step: StandInStep,
  federation: NonNullable<NonNullable<StandInStep["cloud"]["google"]>["federation"]>,
  idToken: { requestUrl: string; requestToken: string },
): Record<string, unknown> {
  const provider = step.inputs["workload_identity_provider"] ?? "";
  const serviceAccount = step.inputs["service_account"] ?? "";
  const url = new URL(idToken.requestUrl);
  url.searchParams.set("audience", `https://iam.googleapis.com/${provider}`);
  return {
    type: "external_account",
    audience: `//iam.googleapis.com/${provider}`,
    subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
    token_url: `${federation.stsUrl}/token`,
    credential_source: {
      url: url.toString(),
      headers: { Authorization: `Bearer ${idToken.requestToken}` },
      format: { type: "json", subject_token_field_name: "value" },
    },
    ...(serviceAccount === ""
      ? {}
      : {
          service_account_impersonation_url: `${federation.iamCredentialsUrl}/projects/-/serviceAccounts/${serviceAccount}:generateAccessToken`,
        }),
  };
}

/** aws-actions/configure-aws-credentials v5 (role-to-assume through OIDC): the session keys and region as variables. */
export const awsCredentialsStandIn: StandIn = {
  inputs: {
    "aws-region": "",
    "role-to-assume": "",
    "role-duration-seconds": "3600",
    "role-session-name": "GitHubActions",
    audience: "sts.amazonaws.com",
  },
  async main(step) {
    requireIdToken(step, "configure-aws-credentials");
    const region = step.inputs["aws-region"] ?? "";
    if (region === "") throw new StandInFailed("Input required and not supplied: aws-region");
    if ((step.inputs["role-to-assume"] ?? "") === "")
      throw new StandInGap("the AWS stand-in models role-to-assume (OIDC) only");
    const keys = step.cloud.aws;
    if (!keys) throw new StandInGap("the test supplied no AWS credentials (ExecutorOptions.cloud.aws)");
    for (const secret of [keys.secretAccessKey, keys.sessionToken]) step.commands.addMask(secret);
    exportAll(step, {
      AWS_ACCESS_KEY_ID: keys.accessKeyId,
      AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
      AWS_SESSION_TOKEN: keys.sessionToken,
      AWS_REGION: region,
      AWS_DEFAULT_REGION: region,
    });
    await Promise.resolve();
  },
};

/**
 * google-github-actions/auth v3 (workload_identity_provider + service_account): a credentials file in
 * the workspace, GOOGLE_APPLICATION_CREDENTIALS and its aliases, the project variables and outputs.
 */
export const googleAuthStandIn: StandIn = {
  inputs: {
    workload_identity_provider: "",
    service_account: "",
    project_id: "",
    create_credentials_file: "true",
    export_environment_variables: "true",
  },
  async main(step) {
    const idToken = requireIdToken(step, "google-github-actions/auth");
    if ((step.inputs["workload_identity_provider"] ?? "") === "")
      throw new StandInFailed(
        'the GitHub Action workflow must specify exactly one of "workload_identity_provider" or "credentials_json"',
      );
    const google = step.cloud.google;
    if (!google)
      throw new StandInGap("the test supplied no Google credentials (ExecutorOptions.cloud.google)");
    const file = path.join(step.workspace, `gha-creds-${randomBytes(8).toString("hex")}.json`);
    const credentials = google.federation
      ? federatedCredentials(step, google.federation, idToken)
      : (google.credentials ?? {});
    await writeFile(file, JSON.stringify(credentials), { mode: 0o600 });
    // As the real action's computeProjectID: the input, else the service account's project (the
    // first label of its email's domain, projectIDFromServiceAccountEmail), else the test's.
    const [, domain = ""] = (step.inputs["service_account"] ?? "").split("@");
    const labels = domain.split(".");
    const project =
      step.inputs["project_id"] || (labels.length >= 2 ? labels[0] : "") || google.project || "";
    exportAll(step, {
      CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE: file,
      GOOGLE_APPLICATION_CREDENTIALS: file,
      GOOGLE_GHA_CREDS_PATH: file,
      ...(project
        ? {
            CLOUDSDK_CORE_PROJECT: project,
            CLOUDSDK_PROJECT: project,
            GCLOUD_PROJECT: project,
            GCP_PROJECT: project,
            GOOGLE_CLOUD_PROJECT: project,
          }
        : {}),
    });
    step.commands.setOutput("credentials_file_path", file);
    if (project) step.commands.setOutput("project_id", project);
  },
};
