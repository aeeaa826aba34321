/** Whether two values of plain data (what yaml reads to: objects, arrays, scalars) are the same. */
export function isSameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every(
    (key) =>
      Object.hasOwn(b, key) &&
      isSameData((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}
