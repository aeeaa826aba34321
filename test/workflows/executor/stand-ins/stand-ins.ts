import { awsCredentialsStandIn, googleAuthStandIn } from "./cloud-login.ts";
import { checkoutStandIn } from "./checkout.ts";

/**
 * What a stand-in does through the runner, as an action's process does with `@actions/core`:
 * outputs, variables for later steps, masks, state for its `post`, log lines.
 */
export type StandInCommands = {
  log(line: string): void;
  setOutput(name: string, value: string): void;
  exportVariable(name: string, value: string): void;
  addMask(value: string): void;
  saveState(name: string, value: string): void;
};

/** Credentials the cloud-login stand-ins export, supplied by the test (see cloud-login.ts). */
export type CloudCredentials = {
  /**
   * GitHub's OIDC token endpoint as a job with `id-token: write` gets it (ACTIONS_ID_TOKEN_REQUEST_URL
   * and ACTIONS_ID_TOKEN_REQUEST_TOKEN): a scripted one, or by default a URL nothing answers.
   */
  idToken?: { requestUrl: string; requestToken: string };
  aws?: { accessKeyId: string; secretAccessKey: string; sessionToken: string };
  /**
   * `credentials`: the file's content as given; `federation`: the external_account file the real
   * action writes for `workload_identity_provider` + `service_account`, its STS and IAM Credentials
   * URLs pointing at a scripted server (see test/support/fake-model-providers.ts).
   */
  google?: {
    credentials?: Record<string, unknown>;
    federation?: { stsUrl: string; iamCredentialsUrl: string };
    project?: string;
  };
};

/** One step of a stand-in: its inputs (defaults applied, expressions evaluated) and the job around it. */
export type StandInStep = {
  inputs: Readonly<Record<string, string>>;
  /** The step's environment (`GITHUB_*`, `RUNNER_*`, the job's and step's `env:`). */
  env: Readonly<Record<string, string>>;
  workspace: string;
  /** The job token's permissions (`id-token: write` is what an OIDC login needs). */
  permissions: Readonly<Record<string, string>>;
  /** Where `owner/name` is cloned from: the emulator's git over smart HTTP. */
  cloneUrl(repository: string): string;
  /** `post` reads what `main` saved. */
  state: Readonly<Record<string, string>>;
  cloud: CloudCredentials;
  commands: StandInCommands;
};

/** A local stand-in for a first-party action: its declared inputs, and what its `main` and `post` do. */
export type StandIn = {
  inputs: Readonly<Record<string, string>>;
  main: (step: StandInStep) => Promise<void>;
  post?: (step: StandInStep) => Promise<void>;
};

/** A stand-in refused its step (the step fails with this message, as the real action's would). */
export class StandInFailed extends Error {
  override name = "StandInFailed";
}

/** Keyed by `owner/name@sha` exactly as the workflows pin them: another SHA is an unknown `uses:`. */
const STAND_INS: Readonly<Record<string, StandIn>> = {
  "actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8": checkoutStandIn,
  "aws-actions/configure-aws-credentials@a03048d87541d1d9fcf2ecf528a4a65ba9bd7838": awsCredentialsStandIn,
  "google-github-actions/auth@7c6bc770dae815cd3e89ee6cdf493a5fab2cc093": googleAuthStandIn,
};

export function findStandIn(uses: string): StandIn | null {
  return STAND_INS[uses] ?? null;
}

/** The executor cannot play what the workflow asks (a test error, never a skipped or faked step). */
export class StandInGap extends Error {
  override name = "StandInGap";
}

/** Inputs given a value the stand-in does not model: refused loudly rather than ignored. */
export function refuseUnmodelled(
  uses: string,
  inputs: Readonly<Record<string, string>>,
  defaults: Readonly<Record<string, string>>,
  modelled: readonly string[],
): void {
  for (const [name, value] of Object.entries(inputs)) {
    if (!modelled.includes(name) && value !== (defaults[name] ?? ""))
      throw new StandInGap(`the stand-in for ${uses} does not model input ${name}: ${JSON.stringify(value)}`);
  }
}
