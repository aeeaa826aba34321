import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { listUsageLines } from "../src/status/list-usage-lines.ts";
import type { CliCommand } from "./cli-command.ts";
import { EXIT, UsageError } from "./cli-command.ts";
import { parseFlags } from "./parse-command-args.ts";

type Env = Record<string, string | undefined>;

/**
 * The App's settings as `npm start` reads them: the environment, then `.env` in the working
 * directory for what the environment leaves unset (as dotenv does).
 */
function readEnv(file: string): Env {
  const fromFile = existsSync(file) ? parseEnv(readFileSync(file, "utf8")) : {};
  return { ...fromFile, ...process.env };
}

/** `loom usage`: one JSON line per session from the App's store, for spreadsheets and billing. */
export const usageCommand: CliCommand = {
  usage: "[--repo <owner/repo>] [--pr <number>] [--env-file <path>]",
  summary: "print what each session cost, one JSON line per session, from the App's store",
  help: [
    "Reads the store of the App running from this directory (DATABASE_URL, else LOOM_SQLITE_PATH,",
    "else data/loom.sqlite; from the environment or .env, as npm start does) and prints one JSON",
    "line per session that reported its usage (loom-usage.jsonl): repo, pr, plan, stage, attempt,",
    "kind, model, run_id, finished_at, turns, input/output/cache tokens, cost_usd, duration_ms,",
    "rerun_why (why an attempt of a completed stage's re-run ran again; null otherwise).",
    "The numbers are Claude Code's own, from each run's loom-result. Finished plans are included.",
    "",
    "options:",
    "  --repo <owner/repo>  only this repository's plans",
    "  --pr <number>        only this pull request (needs --repo)",
    "  --env-file <path>    the App's .env (default: .env)",
    "  -h, --help           this help",
    "",
    "exit status: 0 printed, 1 the store cannot be read, 2 bad usage",
  ].join("\n"),
  async run(args, io) {
    const { values } = parseFlags(args, {
      repo: { type: "string" },
      pr: { type: "string" },
      "env-file": { type: "string" },
    });
    const repoMatch = values.repo === undefined ? null : /^([\w.-]+)\/([\w.-]+)$/.exec(values.repo);
    if (values.repo !== undefined && repoMatch === null)
      throw new UsageError(`--repo must be owner/repo, not "${values.repo}"`);
    const pr = values.pr === undefined ? null : Number(values.pr);
    if (pr !== null && (!Number.isInteger(pr) || pr < 1))
      throw new UsageError(`--pr must be a pull request number, not "${values.pr}"`);
    if (pr !== null && repoMatch === null) throw new UsageError("--pr needs --repo");

    const env = readEnv(values["env-file"] ?? ".env");
    const databaseUrl = env["DATABASE_URL"]?.trim() ?? "";
    const { defaultSqlitePath } = await import("../app/store/default-sqlite-path.ts");
    const sqlitePath = env["LOOM_SQLITE_PATH"]?.trim() || defaultSqlitePath;
    if (databaseUrl === "" && !existsSync(sqlitePath)) {
      io.stderr(
        `loom usage: no store at ${sqlitePath}: run it where the App runs, or set DATABASE_URL or LOOM_SQLITE_PATH\n`,
      );
      return EXIT.failed;
    }
    // Loaded only here: `loom validate` and the other commands never load a database driver.
    const { openStore } = await import("../app/store/open-store.ts");
    const { readStoredPlan } = await import("../app/engine/stored-plan.ts");
    let store;
    try {
      store = await openStore({ databaseUrl, sqlitePath, migrate: false });
    } catch (error) {
      io.stderr(
        `loom usage: cannot open the store: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return EXIT.failed;
    }
    try {
      const filter = repoMatch === null ? undefined : { owner: repoMatch[1] ?? "", repo: repoMatch[2] ?? "" };
      const records = await store.listPlans(filter);
      for (const record of records) {
        if (pr !== null && record.key.pr !== pr) continue;
        const repo = `${record.key.owner}/${record.key.repo}`;
        const { state } = readStoredPlan(record);
        for (const line of listUsageLines({ repo, pr: record.key.pr }, state))
          io.stdout(`${JSON.stringify(line)}\n`);
      }
    } finally {
      await store.close();
    }
    return EXIT.ok;
  },
};
