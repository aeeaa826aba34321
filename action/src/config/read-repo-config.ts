import type { LoomConfig } from "../../../src/config/loom-config.ts";
import { parseLoomConfig } from "../../../src/config/loom-config.ts";

export const REPO_CONFIG_PATH = ".github/loom.yml";

/** Larger than any real `.github/loom.yml`; a bigger answer is refused unread. */
const MAX_CONFIG_BYTES = 64 * 1024;

/** The repository's config: absent (`null`), valid, or a reason it cannot be used. */
export type RepoConfigRead = { ok: true; config: LoomConfig | null } | { ok: false; reason: string };

export type ReadRepoConfigOptions = {
  /** `GITHUB_API_URL`, e.g. `https://api.github.com`. */
  apiUrl: string;
  /** `GITHUB_REPOSITORY`, `owner/name`. */
  repository: string;
  /** The trusted commit: `GITHUB_SHA`, what the workflow was dispatched on (never the stage branch). */
  ref: string;
  token: string;
  fetch: typeof fetch;
  /** Waits between attempts (tests pass an instant one). Default: a real timer. */
  sleep?: (ms: number) => Promise<void>;
};

/** Waits before the 2nd and 3rd attempt when GitHub had a hiccup (network, 5xx, 429). */
const RETRY_DELAYS_MS = [1_000, 3_000];

/**
 * Reads `.github/loom.yml` at the trusted ref through the contents API. The stage branch's copy
 * is never read: a session's own commits must not raise the caps that bound it.
 */
export async function readRepoConfig(options: ReadRepoConfigOptions): Promise<RepoConfigRead> {
  const { apiUrl, repository, ref, token } = options;
  if (!/^[\w.-]+\/[\w.-]+$/.test(repository) || /(^|\/)\.+(\/|$)/.test(repository))
    return refuse(`GITHUB_REPOSITORY "${repository}" is not owner/name`);
  if (!/^[0-9a-f]{40,64}$/.test(ref)) return refuse(`GITHUB_SHA "${ref}" is not a commit SHA`);
  const url = `${apiUrl.replace(/\/+$/, "")}/repos/${repository}/contents/${REPO_CONFIG_PATH}?ref=${ref}`;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let response: Response | undefined;
  let failure = "";
  for (let attempt = 0; attempt <= RETRY_DELAYS_MS.length; attempt++) {
    if (attempt > 0) await sleep(RETRY_DELAYS_MS[attempt - 1] ?? 0);
    try {
      response = await options.fetch(url, {
        headers: {
          accept: "application/vnd.github.raw+json",
          authorization: `Bearer ${token}`,
          "x-github-api-version": "2022-11-28",
          "user-agent": "loom-action",
        },
        signal: AbortSignal.timeout(30_000),
      });
    } catch (error) {
      response = undefined;
      failure = `the request failed: ${error instanceof Error ? error.message : String(error)}`;
      continue;
    }
    if (response.status !== 429 && response.status < 500) break;
    failure = `GitHub answered ${response.status}`;
    await response.arrayBuffer().catch(() => undefined);
    response = undefined;
  }
  if (response === undefined) return refuse(`${failure} (${RETRY_DELAYS_MS.length + 1} attempts)`);
  if (response.status === 404) return { ok: true, config: null };
  if (response.status !== 200) return refuse(`GitHub answered ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_CONFIG_BYTES) return refuse(`it is larger than ${MAX_CONFIG_BYTES} bytes`);
  const parsed = parseLoomConfig(text);
  if (parsed.ok) return { ok: true, config: parsed.config };
  const problems = parsed.problems.map((p) => (p.line === null ? p.message : `line ${p.line}: ${p.message}`));
  return { ok: false, reason: `${REPO_CONFIG_PATH} is invalid: ${problems.join("; ")}` };
}

function refuse(why: string): RepoConfigRead {
  return { ok: false, reason: `cannot read ${REPO_CONFIG_PATH}: ${why}` };
}
