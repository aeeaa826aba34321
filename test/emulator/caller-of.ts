import type { Core } from "./create-core.ts";
import type { Permissions } from "./token-permissions.ts";
import { tokenOf } from "./token-of.ts";

/** The login a job's `GITHUB_TOKEN` acts as. */
export const JOB_LOGIN = "github-actions[bot]";

/**
 * Who sent a request. One without credentials (a signed blob or artifact URL, as the artifact
 * clients use) is nobody's: it is not counted as the App's.
 */
export const ANONYMOUS = "anonymous";

/**
 * Who a request's credentials make it, and what they may do:
 * - `app-jwt`: the App itself (a JWT): only the App's own endpoints;
 * - `installation`: the App's installation token, and any token the emulator never issued (tests
 *   hand the App's client a made-up token), with the App's permissions;
 * - `job`: a job's `GITHUB_TOKEN`, in its run's repository only; `ended`: one whose job has ended;
 * - `person`: a person's token (`tokenFor`), acting with their repository role.
 */
export type Caller =
  | { kind: "anonymous"; login: string }
  | { kind: "app-jwt"; login: string }
  | { kind: "installation"; login: string; permissions: Permissions }
  | { kind: "job"; login: string; repo: string; permissions: Permissions }
  | { kind: "ended"; login: string }
  | { kind: "person"; login: string };

export function callerOf(core: Core, authorization: string | undefined): Caller {
  const token = tokenOf(authorization ?? "");
  if (token === "") return { kind: "anonymous", login: ANONYMOUS };
  if (token.split(".").length === 3) return { kind: "app-jwt", login: core.json.appSlug };
  const record = core.state.tokens.get(token);
  if (record === undefined || record.kind === "installation") {
    const permissions = record?.permissions ?? core.state.appPermissions;
    return { kind: "installation", login: core.botLogin, permissions };
  }
  if (record.kind === "person") return { kind: "person", login: record.login };
  if (record.ended) return { kind: "ended", login: JOB_LOGIN };
  return { kind: "job", login: JOB_LOGIN, repo: record.repo, permissions: record.permissions };
}

/** Ends the job whose `GITHUB_TOKEN` is `token`: from now on the token gets 401 Bad credentials. */
export function endJobToken(core: Core, token: string): void {
  const record = core.state.tokens.get(token);
  if (record?.kind !== "job") throw new Error("that is no job token the emulator issued");
  record.ended = true;
}

/** A run completed: every job of it has ended, and so have their tokens. */
export function endJobTokensOfRun(core: Core, runId: number): void {
  for (const record of core.state.tokens.values())
    if (record.kind === "job" && record.runId === runId) record.ended = true;
}
