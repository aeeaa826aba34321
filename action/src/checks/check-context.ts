import path from "node:path";
import type { SessionSandbox } from "../isolation/session-isolation.ts";

/** What every check needs from the job. */
export type CheckContext = {
  /** The checkout's root. */
  workspace: string;
  /** Environment for check commands: the job's, without the model key. */
  env: Record<string, string | undefined>;
  /** Run commands as the session user (see `runCommand`'s `runAs`); left out: as the action's user. */
  sandbox?: SessionSandbox;
  /** Secret values to redact from captured output. */
  knownSecrets: readonly string[];
  /** Timeout of a command that sets none itself. */
  defaultTimeoutMs: number;
  now: () => number;
};

/** The absolute path of a stage-relative path, or null when it escapes the checkout. */
export function resolveInside(workspace: string, ...segments: string[]): string | null {
  const root = path.resolve(workspace);
  const target = path.resolve(root, ...segments);
  return target === root || target.startsWith(`${root}${path.sep}`) ? target : null;
}
