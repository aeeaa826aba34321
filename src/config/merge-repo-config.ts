import { isRecord } from "../plan/is-record.ts";
import { LoomConfig } from "./loom-config.ts";
import type { ConfigProblem, LoomConfigResult } from "./loom-config.ts";

/**
 * One file that made up the repository's config, as Probot's config plugin read it: the
 * repository's own `.github/loom.yml` first, then (when it has none) the owner's `.github`
 * repository's, then each file an `_extends` named. `config` is null for a file that was not there.
 */
export type ConfigSource = { owner: string; repo: string; path: string; config: unknown };

function nameOf(source: ConfigSource): string {
  return `${source.owner}/${source.repo}:${source.path}`;
}

/** Keys whose value is an object of settings: a file that sets one of its keys keeps the others. */
const NESTED = new Set(["retry", "session", "budget"]);

function mergeInto(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const before = merged[key];
    merged[key] = NESTED.has(key) && isRecord(before) && isRecord(value) ? { ...before, ...value } : value;
  }
  return merged;
}

function problemsOf(source: ConfigSource, own: boolean): ConfigProblem[] {
  const where = own ? "" : `from ${nameOf(source)}: `;
  const result = LoomConfig.safeParse(source.config);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({
    message: `${where}${issue.path.join(".") || "(file)"}: ${issue.message}`,
    line: null,
  }));
}

/**
 * The repository's config from the files that make it up: each file is checked on its own (so a
 * mistake names its file), then they are merged, the repository's own file winning key by key
 * (`retry`, `session` and `budget` field by field). Refused, so nothing runs on a config loom did not mean:
 * an `_extends` naming a file loom cannot read (missing, or in a repository the App is not
 * installed on), and `session:` anywhere but the repository's own file: the stage job reads its
 * caps from the dispatched commit with a token for this repository only, so a ceiling set
 * elsewhere would bind the App's view and not the session.
 */
export function mergeRepoConfig(sources: readonly ConfigSource[]): LoomConfigResult {
  const [own, ...others] = sources;
  if (own === undefined) return { ok: true, config: LoomConfig.parse({}) };
  const problems: ConfigProblem[] = [];
  const present = sources.filter((source) => source.config !== null);
  others.forEach((source, index) => {
    // Only the owner's `.github` fallback, read because the repository has no file, may be absent.
    const fallback = index === 0 && own.config === null;
    if (source.config === null && !fallback)
      problems.push({
        message: `_extends names ${nameOf(source)}, which loom cannot read (it does not exist, or the App is not installed on ${source.owner}/${source.repo})`,
        line: null,
      });
  });
  for (const source of present) problems.push(...problemsOf(source, source === own));
  for (const source of others) {
    if (isRecord(source.config) && "session" in source.config)
      problems.push({
        message: `from ${nameOf(source)}: session: set it in this repository's own .github/loom.yml (the stage job reads its caps there and cannot read ${source.owner}/${source.repo})`,
        line: null,
      });
  }
  if (problems.length > 0) return { ok: false, problems };
  let merged: Record<string, unknown> = {};
  for (const source of [...present].reverse())
    if (isRecord(source.config)) merged = mergeInto(merged, source.config);
  const result = LoomConfig.safeParse(merged);
  if (result.success) return { ok: true, config: result.data };
  return { ok: false, problems: problemsOf({ ...own, config: merged }, true) };
}
