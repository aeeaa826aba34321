import type { LoomConfig } from "../../../src/config/loom-config.ts";
import { parseLoomConfig } from "../../../src/config/loom-config.ts";
import { GITHUB_RETRIES, type GitHubClient } from "../github/create-github-client.ts";

export const REPO_CONFIG_PATH = ".github/loom.yml";

/** Larger than any real `.github/loom.yml`; a bigger answer is refused unread. */
const MAX_CONFIG_BYTES = 64 * 1024;
/** The whole read, retries included, before the stage gives up on the config (fail closed). */
const READ_TIMEOUT_MS = 60_000;

function isTimeout(error: unknown): boolean {
  const named = error as { name?: unknown; cause?: unknown } | null;
  if (named === null || typeof named !== "object") return false;
  return named.name === "TimeoutError" || named.name === "AbortError" || isTimeout(named.cause);
}

/** The repository's config: absent (`null`), valid, or a reason it cannot be used. */
export type RepoConfigRead =
  { ok: true; config: LoomConfig | null; ignored?: string[] } | { ok: false; reason: string };

export type ReadRepoConfigOptions = {
  /** The job's GitHub client (`createGitHubClient`: retries network errors, 429 and 5xx). */
  github: GitHubClient;
  /** `GITHUB_REPOSITORY`, `owner/name`. */
  repository: string;
  /** The trusted commit: `GITHUB_SHA`, what the workflow was dispatched on (never the stage branch). */
  ref: string;
  /** The whole read, retries included (default 60 s). */
  timeoutMs?: number;
};

/**
 * Reads `.github/loom.yml` at the trusted ref through the contents API. Keys this version of the
 * action does not know (written for a newer loom) are left out and named in `ignored`. The stage branch's copy
 * is never read: a session's own commits must not raise the caps that bound it. Fails closed:
 * anything but the file or a 404 is a reason, never "no config".
 */
export async function readRepoConfig(options: ReadRepoConfigOptions): Promise<RepoConfigRead> {
  const { repository, ref } = options;
  if (!/^[\w.-]+\/[\w.-]+$/.test(repository) || /(^|\/)\.+(\/|$)/.test(repository))
    return refuse(`GITHUB_REPOSITORY "${repository}" is not owner/name`);
  if (!/^[0-9a-f]{40,64}$/.test(ref)) return refuse(`GITHUB_SHA "${ref}" is not a commit SHA`);
  const [owner = "", repo = ""] = repository.split("/");
  const timeoutMs = options.timeoutMs ?? READ_TIMEOUT_MS;
  let data: unknown;
  try {
    // The path is a constant, written out so its slashes stay slashes (`{path}` would encode them).
    const response = await options.github.request(`GET /repos/{owner}/{repo}/contents/${REPO_CONFIG_PATH}`, {
      owner,
      repo,
      ref,
      headers: { accept: "application/vnd.github.raw+json" },
      request: { signal: AbortSignal.timeout(timeoutMs) },
    });
    data = response.data as unknown;
  } catch (error) {
    if (isTimeout(error)) return refuse(`GitHub did not answer within ${timeoutMs / 1000} s`);
    return answerOf(error);
  }
  const text = textOf(data);
  if (text === null) return refuse("GitHub answered something other than the file's text");
  if (Buffer.byteLength(text) > MAX_CONFIG_BYTES)
    return refuse(`it is larger than ${MAX_CONFIG_BYTES} bytes`);
  // Keys of a newer loom than this action are left out (and named): the App checks the file.
  const parsed = parseLoomConfig(text, { unknownKeys: "ignore" });
  if (parsed.ok)
    return { ok: true, config: parsed.config, ...(parsed.ignored ? { ignored: parsed.ignored } : {}) };
  const problems = parsed.problems.map((p) => (p.line === null ? p.message : `line ${p.line}: ${p.message}`));
  return { ok: false, reason: `${REPO_CONFIG_PATH} is invalid: ${problems.join("; ")}` };
}

/** The raw media type comes back as text, or as bytes when GitHub names no charset. */
function textOf(data: unknown): string | null {
  if (typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
  return null;
}

/** Octokit's `RequestError`: `status`, and `response` unless the request never got an answer. */
function answerOf(error: unknown): RepoConfigRead {
  const failure = error as { status?: unknown; response?: unknown; message?: unknown };
  const status = typeof failure.status === "number" ? failure.status : null;
  const attempts = `(${GITHUB_RETRIES + 1} attempts)`;
  if (status === null || failure.response === undefined)
    return refuse(`the request failed: ${String(failure.message ?? error)} ${attempts}`);
  if (status === 404) return { ok: true, config: null };
  return refuse(
    status === 429 || status >= 500 ? `GitHub answered ${status} ${attempts}` : `GitHub answered ${status}`,
  );
}

function refuse(why: string): RepoConfigRead {
  return { ok: false, reason: `cannot read ${REPO_CONFIG_PATH}: ${why}` };
}
