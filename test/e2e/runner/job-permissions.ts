import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import type { RunRecord } from "../../emulator/emulator-state.ts";
import type { Emulator } from "../../emulator/start-emulator.ts";

const STAGE_WORKFLOW = path.resolve(import.meta.dirname, "../../../.github/workflows/loom-stage.yml");

type Permissions = Record<string, string>;

const RANK: Record<string, number> = { none: 0, read: 1, write: 2 };

function readPermissions(value: unknown): Permissions {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).map(([scope, level]) => [scope, String(level)]))
    : {};
}

/**
 * The permissions job `job` of loom's stage workflow gets, as GitHub decides when it loads the
 * run: what the job asks for (`.github/workflows/loom-stage.yml`), provided the caller's job that
 * calls it (the run's workflow file) grants at least that much; otherwise GitHub refuses the whole
 * run at startup ("The nested job 'publish' is requesting 'checks: write', but is only allowed
 * 'checks: none'"), which this throws.
 */
export async function readJobPermissions(
  emulator: Emulator,
  run: RunRecord,
  job: "run" | "publish",
): Promise<Permissions> {
  const stage = parse(await readFile(STAGE_WORKFLOW, "utf8")) as {
    jobs: Record<string, { permissions?: unknown }>;
  };
  const asked = readPermissions(stage.jobs[job]?.permissions);
  const callerText = await emulator.repo(run.repo).git.readBlob(run.headSha, run.workflowPath);
  const caller = parse(callerText?.toString("utf8") ?? "{}") as {
    jobs?: Record<string, { permissions?: unknown }>;
  };
  const granted = readPermissions(Object.values(caller.jobs ?? {})[0]?.permissions);
  for (const [scope, level] of Object.entries(asked)) {
    const allowed = granted[scope] ?? "none";
    if ((RANK[level] ?? 0) > (RANK[allowed] ?? 0))
      throw new Error(
        `The nested job '${job}' is requesting '${scope}: ${level}', but is only allowed '${scope}: ${allowed}'.`,
      );
  }
  return asked;
}
