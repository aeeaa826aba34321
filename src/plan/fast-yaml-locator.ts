import type { LineIndex } from "./line-index.ts";
import { locateOffset } from "./line-index.ts";
import type { Location } from "./plan.ts";
import type { FastYaml } from "./read-yaml-fast.ts";
import type { YamlLocator } from "./yaml-locator.ts";

/**
 * Locates with the fast reader's offsets, and asks `careful()` (the `yaml` library's locator, made
 * the first time it is needed) wherever those are not exact: the answers are the same either way.
 */
export function createFastYamlLocator(
  fast: FastYaml,
  careful: () => YamlLocator,
  baseOffset: number,
  lines: LineIndex,
): YamlLocator {
  const offset = (yamlOffset: number): Location => locateOffset(lines, baseOffset + Math.max(0, yamlOffset));
  return {
    value: (path) => {
      const spot = fast.find(path)?.value ?? null;
      return spot === null ? careful().value(path) : offset(spot);
    },
    key: (path) => {
      const spot = fast.find(path);
      const start = spot ? (spot.key ?? spot.value) : null;
      return start === null ? careful().key(path) : offset(start);
    },
    offset,
  };
}
