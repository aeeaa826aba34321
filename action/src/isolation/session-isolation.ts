import { createHash } from "node:crypto";

/**
 * The user the action runs Claude Code and the checks as: one per runner (named after its
 * RUNNER_TEMP), because the action kills every process of that user when the session ends and
 * several runners may share one machine.
 */
export function sessionUserName(runnerTemp: string): string {
  return `loom-${createHash("sha256").update(runnerTemp).digest("hex").slice(0, 10)}`;
}

/**
 * How the session is kept away from the runner's tokens. `user`: Claude Code, its tools and the
 * checks run as a separate unprivileged user, so `/proc/<action pid>/environ` (the Actions runtime
 * token, the job's GitHub token) is closed to them; `via` says how the action switches to it (it
 * runs as root, or as a user with passwordless sudo). `none`: the runner cannot switch users, and
 * `reason` says why.
 */
export type SessionIsolation =
  | { kind: "user"; user: string; uid: number; gid: number; via: "root" | "sudo"; created: boolean }
  | { kind: "none"; reason: string };

/** Where the isolated session lives on the runner, besides the checkout. */
export type SessionSandbox = {
  isolation: SessionIsolation;
  /** The session user's HOME for this run (Claude Code's config, caches): owned by that user. */
  home: string;
  /** The action's own folder (snapshots of `.git` files): the session user cannot enter it. */
  privateDir: string;
  /** Owner of the checkout when the session does not hold it: the action's own uid and gid. */
  owner: { uid: number; gid: number };
};

/** One line for logs and the job summary. */
export function describeIsolation(isolation: SessionIsolation): string {
  return isolation.kind === "user"
    ? `the session runs as the separate user ${isolation.user} (uid ${isolation.uid}, switched to ${isolation.via === "root" ? "from root" : "through sudo"})`
    : `the session runs as the runner's own user: ${isolation.reason}`;
}
