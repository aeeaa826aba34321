/**
 * What the executor remembers between effects in one process: ids of check runs and status
 * comments it found or created, the last payload it wrote to each (to skip identical writes), and
 * ETags of polled reads (a 304 answer does not count against the rate limit). Losing it costs
 * only extra look-ups: GitHub stays the source of truth.
 */
export type GitHubCache = {
  ids: BoundedMap<number>;
  written: BoundedMap<string>;
  etags: BoundedMap<{ etag: string; data: unknown }>;
  /** Values derived from downloads keyed by artifact id (artifacts never change in place). */
  artifacts: BoundedMap<unknown>;
};

export type BoundedMap<V> = {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
};

/** A Map that forgets its oldest entries beyond `limit`. */
export function createBoundedMap<V>(limit: number): BoundedMap<V> {
  const map = new Map<string, V>();
  return {
    get: (key) => map.get(key),
    set: (key, value) => {
      map.delete(key);
      map.set(key, value);
      while (map.size > limit) {
        const oldest = map.keys().next();
        if (oldest.done) break;
        map.delete(oldest.value);
      }
    },
    delete: (key) => {
      map.delete(key);
    },
  };
}

export function createGitHubCache(limit = 10_000): GitHubCache {
  return {
    ids: createBoundedMap(limit),
    written: createBoundedMap(limit),
    etags: createBoundedMap(limit),
    artifacts: createBoundedMap(limit),
  };
}
