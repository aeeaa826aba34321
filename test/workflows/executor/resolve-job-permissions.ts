import { evaluateToken, type Value } from "./evaluate-template.ts";
import {
  checkNestedPermissions,
  DEFAULT_PERMISSIONS,
  readPermissions,
  type Permissions,
} from "./job-permissions.ts";
import { findJobToken, findKey, type LoadedWorkflow } from "./load-workflow.ts";

/** What a job's token holds: its `permissions:`, else its workflow's, else (a called job) its caller's or the default. */
export function effectivePermissions(
  loaded: LoadedWorkflow,
  file: string,
  jobId: string,
  inherited: Permissions,
): Permissions {
  const own = readPermissions(
    valueOf(loaded, findKey(findJobToken(loaded, file, jobId), "permissions", loaded.parser)),
  );
  const workflow = readPermissions(
    valueOf(loaded, findKey(loaded.roots.get(file), "permissions", loaded.parser)),
  );
  return own ?? workflow ?? inherited;
}

/**
 * GitHub's startup check, before any `if:`: every called job's permissions against what its caller
 * job grants (throws `PermissionRefused` with GitHub's message). Refuses what the executor does not
 * run (a matrix, a called workflow calling another) rather than running it wrongly.
 */
export function checkCalledPermissions(loaded: LoadedWorkflow, file: string): void {
  for (const job of loaded.template.jobs) {
    if (job.type !== "reusableWorkflowJob") {
      if (job.strategy) throw new Error(`job ${job.id.value}: the executor does not run matrix strategies`);
      continue;
    }
    const allowed = effectivePermissions(loaded, file, job.id.value, DEFAULT_PERMISSIONS);
    for (const called of job.jobs ?? []) {
      if (called.type !== "job" || called.strategy)
        throw new Error(`${job.ref.value}: the executor runs one level of called workflow, without matrix`);
      checkNestedPermissions(
        called.id.value,
        effectivePermissions(loaded, job.ref.value, called.id.value, allowed),
        allowed,
      );
    }
  }
}

function valueOf(loaded: LoadedWorkflow, token: ReturnType<typeof findKey>): Value | undefined {
  return token ? evaluateToken(loaded.parser, token, { contexts: {} }) : undefined;
}
