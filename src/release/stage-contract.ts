/**
 * The contract between loom's App and the stage workflow a caller pins: what the App sends when it
 * dispatches the caller (`workflow_dispatch` inputs), who creates a stage's branch before its first
 * run, how a run reports its outcome, what the branch is called and what the caller's job must grant.
 * A release of loom speaks one contract version (`LOOM_RELEASES`); this App speaks `MAIN_CONTRACT`.
 */

/** Contract versions, oldest first. */
export const CONTRACT_VERSIONS = ["0.2", "0.3", "0.4"] as const;
export type ContractVersion = (typeof CONTRACT_VERSIONS)[number];

/** The contract this App speaks (and the workflows in this tree). */
export const MAIN_CONTRACT: ContractVersion = "0.4";

import { SESSION_KINDS, type SessionKind } from "../stage/stage-status.ts";

/** A `GITHUB_TOKEN` scope and the level a stage workflow's jobs ask for. */
export type Grant = "read" | "write";

export type StageContract = {
  version: ContractVersion;
  /**
   * The `workflow_dispatch` inputs the App sends, every one a string: a caller declares each (GitHub
   * refuses a dispatch naming an undeclared input) and requires no other (nor one the App omits).
   */
  dispatchInputs: readonly string[];
  /** The stage branch's name. */
  branch: string;
  /**
   * Who creates the stage branch before its first run: the App (the run checks the branch out), or
   * nobody (the run starts from the merge point `base` and its publish job creates the branch).
   */
  firstBranch: "app" | "publish";
  /** How a run reports its outcome: artifacts only, or also the `loom result` check run publish writes. */
  result: "artifacts" | "check-run";
  /**
   * The session kinds its action runs (the `kind` input it accepts): `continue` (`/loom continue`,
   * which reads loom's record of the instructions and the `loom-session` state) from 0.4 on.
   */
  sessionKinds: readonly SessionKind[];
  /**
   * What the stage workflow's jobs ask for (`loom-stage.yml`; `loom-stage-oidc.yml` asks for
   * `OIDC_GRANTS` too): the caller's job must grant at least this, or GitHub fails the run at startup.
   */
  grants: Readonly<Record<string, Grant>>;
  /**
   * How this App serves a caller of this contract: as it is; by creating each stage branch before
   * its first run (what the 0.3 App did); or not at all.
   */
  served: "as-is" | "branch-first" | "no";
  /** Why, for `branch-first` and `no`: what the caller's workflow does that this App no longer does. */
  why: string;
};

/** The inputs every contract so far dispatches, in the order the example callers declare them. */
const DISPATCH_INPUTS = [
  "key",
  "plan_path",
  "plan_id",
  "stage_id",
  "attempt",
  "kind",
  "branch",
  "base",
  "previous_run_id",
] as const;

/** `loom-stage-oidc.yml`'s run job logs in to the cloud provider with GitHub's OIDC token. */
export const OIDC_GRANTS: Readonly<Record<string, Grant>> = { "id-token": "write" };

export const STAGE_CONTRACTS: Readonly<Record<ContractVersion, StageContract>> = {
  "0.2": {
    version: "0.2",
    dispatchInputs: DISPATCH_INPUTS,
    branch: "loom/<plan-id>/<stage-id>",
    firstBranch: "app",
    result: "artifacts",
    sessionKinds: ["stage", "recovery", "merge"],
    grants: { contents: "write", actions: "read" },
    served: "no",
    why: "its action refuses every stage branch this App names (`loom/pr-<n>/<plan-id>/<stage-id>`; 0.2 expects `loom/<plan-id>/<stage-id>`)",
  },
  "0.3": {
    version: "0.3",
    dispatchInputs: DISPATCH_INPUTS,
    branch: "loom/pr-<n>/<plan-id>/<stage-id>",
    firstBranch: "app",
    result: "artifacts",
    sessionKinds: ["stage", "recovery", "merge"],
    grants: { contents: "write", actions: "read" },
    served: "branch-first",
    why: "its run checks the stage branch out on attempt 1, so loom creates each stage branch before the first run, as loom 0.3 did: a read and a write more per stage",
  },
  "0.4": {
    version: "0.4",
    dispatchInputs: DISPATCH_INPUTS,
    branch: "loom/pr-<n>/<plan-id>/<stage-id>",
    firstBranch: "publish",
    result: "check-run",
    sessionKinds: SESSION_KINDS,
    grants: { contents: "write", actions: "read", checks: "write" },
    served: "as-is",
    why: "",
  },
};
