/** `{ [key]: value }`, or nothing when the value is undefined (for exactOptionalPropertyTypes). */
export function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
