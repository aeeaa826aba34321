/**
 * The candidate a misspelt `word` most likely meant, or null when none is close. Letter case and
 * `-` versus `_` are ignored; then at most one edit (insert, delete, replace or swap two neighbours)
 * for words of up to five characters, two for longer ones, so `dependecies` finds `dependencies`
 * and `acceptence` finds `acceptance`, while short unrelated words stay unmatched. Ties go to the
 * earlier candidate.
 */
export function findClosestName(word: string, candidates: Iterable<string>): string | null {
  const target = normalize(word);
  const limit = target.length <= 3 ? 0 : target.length <= 5 ? 1 : 2;
  let best: { name: string; distance: number } | null = null;
  for (const name of candidates) {
    if (name === word) continue;
    const distance = editDistance(target, normalize(name), limit);
    if (distance <= limit && (best === null || distance < best.distance)) best = { name, distance };
  }
  return best?.name ?? null;
}

function normalize(name: string): string {
  return name.toLowerCase().replaceAll("-", "_");
}

/**
 * Optimal-string-alignment distance (Levenshtein plus swaps of neighbours), or `limit + 1` as soon
 * as it must exceed `limit`.
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous2: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (previous2[j - 2] ?? 0) + 1);
      row.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous2 = previous;
    previous = row;
  }
  return Math.min(previous[b.length] ?? limit + 1, limit + 1);
}
