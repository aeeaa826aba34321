import { countCall, readStatus } from "./effect-context.ts";
import type { ApiCalls } from "./effect-context.ts";
import type { GitHubCache } from "./github-cache.ts";

type Response<T> = { data: T; headers: { etag?: string } };

/**
 * A GET with `If-None-Match` when an ETag for `cacheKey` is known. A 304 (free: it does not count
 * against the rate limit) returns the remembered data with `changed: false`. Without a cache it is
 * a plain GET.
 */
export async function readConditional<T>(
  env: { calls?: ApiCalls; cache?: GitHubCache },
  label: string,
  cacheKey: string,
  read: (headers: Record<string, string>) => Promise<Response<T>>,
): Promise<{ data: T; changed: boolean }> {
  const cached = env.cache?.etags.get(cacheKey);
  countCall(env.calls, label);
  try {
    const response = await read(cached ? { "if-none-match": cached.etag } : {});
    if (env.cache && response.headers.etag) {
      env.cache.etags.set(cacheKey, { etag: response.headers.etag, data: response.data });
    }
    return { data: response.data, changed: true };
  } catch (error) {
    if (cached && readStatus(error) === 304) {
      if (env.calls) env.calls.notModified++;
      return { data: cached.data as T, changed: false };
    }
    throw error;
  }
}
