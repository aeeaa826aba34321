import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * What `actions/checkout` does: a full clone of `branch` over git's smart HTTP (the emulator's
 * `cloneUrl`), authenticated with the job token as an `AUTHORIZATION` extra header; with
 * `persist-credentials` the header stays in the clone's config, so the job can push.
 */
export async function checkout(input: {
  cloneUrl: string;
  branch: string;
  into: string;
  token: string;
  persistCredentials: boolean;
}): Promise<void> {
  const header = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${input.token}`).toString("base64")}`;
  const key = `http.${new URL(input.cloneUrl).origin}/.extraheader`;
  const env = { ...process.env, GIT_TERMINAL_PROMPT: "0" };
  await run(
    "git",
    [
      "-c",
      `${key}=${header}`,
      "clone",
      "--quiet",
      "--branch",
      input.branch,
      "--",
      input.cloneUrl,
      input.into,
    ],
    { env },
  );
  if (input.persistCredentials)
    await run("git", ["config", "--local", key, header], { cwd: input.into, env });
}

/**
 * The `ref` both jobs of the stage workflow check out (`.github/workflows/loom-stage*.yml`; a test
 * keeps this text and the shipped files equal), and what it evaluates to for a run's inputs:
 * attempt 1 starts from the merge point (`base`; its publish job creates the stage branch), any
 * later attempt from the stage branch.
 */
export const STAGE_CHECKOUT_REF =
  "${{ fromJSON(inputs.request).attempt == '1' && fromJSON(inputs.request).base || fromJSON(inputs.request).branch }}";

export function stageCheckoutRef(inputs: Record<string, string>): string {
  const base = inputs["base"] ?? "";
  return inputs["attempt"] === "1" && base !== "" ? base : (inputs["branch"] ?? "");
}
