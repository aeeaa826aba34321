import { isAlias, isMap, isScalar, isSeq } from "yaml";
import type { Document, Node } from "yaml";
import type { LineIndex } from "./line-index.ts";
import { locateOffset } from "./line-index.ts";
import type { Location } from "./plan.ts";

export type YamlPath = readonly (string | number)[];

/** Finds where a value (or its key) sits in the markdown file. */
export type YamlLocator = {
  /** The value at `path`, or the deepest part of the path that exists. */
  value(path: YamlPath): Location;
  /** The key of the map entry at `path` (its last element), or its value when it has no key node. */
  key(path: YamlPath): Location;
  /** A location for an offset inside the yaml text. */
  offset(yamlOffset: number): Location;
};

/**
 * Maps YAML node ranges (offsets into the yaml text) to markdown lines and columns: the yaml
 * text starts at `baseOffset` in the markdown whose line starts are `lines`.
 */
export function createYamlLocator(doc: Document, baseOffset: number, lines: LineIndex): YamlLocator {
  const offset = (yamlOffset: number): Location => locateOffset(lines, baseOffset + Math.max(0, yamlOffset));
  const rootStart = (): number => doc.contents?.range?.[0] ?? 0;

  function walk(path: YamlPath): { node: Node | null; keyNode: Node | null } {
    let node: unknown = doc.contents;
    let keyNode: Node | null = null;
    for (const segment of path) {
      if (isAlias(node)) node = node.resolve(doc);
      if (isMap(node)) {
        const pair = node.items.find(
          (item) => isScalar(item.key) && String(item.key.value) === String(segment),
        );
        if (!pair) break;
        keyNode = isScalar(pair.key) ? pair.key : null;
        node = pair.value ?? pair.key;
      } else if (isSeq(node) && typeof segment === "number" && node.items[segment] !== undefined) {
        keyNode = null;
        node = node.items[segment];
      } else {
        break;
      }
    }
    return { node: isNodeWithRange(node) ? node : null, keyNode };
  }

  return {
    value: (path) => offset(walk(path).node?.range?.[0] ?? rootStart()),
    key: (path) => {
      const found = walk(path);
      return offset(found.keyNode?.range?.[0] ?? found.node?.range?.[0] ?? rootStart());
    },
    offset,
  };
}

function isNodeWithRange(value: unknown): value is Node {
  return typeof value === "object" && value !== null && "range" in value && Array.isArray(value.range);
}
