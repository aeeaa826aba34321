import { constructFromEvents, getScalarValue, parseEvents } from "js-yaml";
import type { Event, ScalarEvent } from "js-yaml";
import type { YamlPath } from "./yaml-locator.ts";

/**
 * Where the node found by a path starts in the yaml text (null: not known exactly), and where its
 * map key starts (null when the path's last step is a list index, or the path is empty).
 */
export type FastSpot = { value: number | null; key: number | null };

/** The plain data of a yaml text read by the fast reader, and the offsets of its nodes. */
export type FastYaml = {
  readonly value: unknown;
  /** Offsets of the node at `path`, or null when this reader did not find it. */
  find(path: YamlPath): FastSpot | null;
};

const [DOCUMENT, SEQUENCE, MAPPING, SCALAR, ALIAS, POP] = [1, 2, 3, 4, 5, 6] as const;
const [PLAIN, SINGLE_QUOTED, DOUBLE_QUOTED] = [1, 2, 3] as const;
/** Plain keys whose text is their value as a string under the YAML 1.2 core schema. */
const SAFE_PLAIN_KEY = /^[A-Za-z_][\w-]*$/;
const NOT_STRINGS = new Set(["null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"]);

type Spot = { start: number | null; keys?: Map<string, { key: number; node: Spot }>; items?: Spot[] };

/**
 * Reads the common plan yaml (one document: no directives, tags, anchors or aliases) with js-yaml,
 * about twenty times faster than the `yaml` library, which stays the reader of everything else
 * and of every error. Null means "read it the careful way": js-yaml refused the text, or it uses a
 * feature where the two readers' values or positions could differ.
 *
 * Positions follow the `yaml` library's ranges (a quoted scalar starts at its quote); where they
 * might not (block and empty scalars, keys that are not plain words), `find` says null.
 */
export function readYamlFast(yaml: string): FastYaml | null {
  let events: Event[];
  let value: unknown;
  try {
    events = parseEvents(yaml, {});
    if (!isPlainDocument(events)) return null;
    [value] = constructFromEvents(events, { source: yaml, maxAliases: 0 });
  } catch {
    // js-yaml refused the text (or ran out of stack): the `yaml` library reads it and says why.
    return null;
  }
  let root: Spot | undefined;
  return {
    value,
    find: (path) => {
      root ??= indexSpots(yaml, events);
      return findSpot(root, path);
    },
  };
}

/** One document without directives, explicit markers, tags, anchors or aliases. */
function isPlainDocument(events: readonly Event[]): boolean {
  let documents = 0;
  for (const event of events) {
    switch (event.type) {
      case DOCUMENT:
        documents++;
        if (event.explicitStart || event.explicitEnd || event.directives.length > 0) return false;
        break;
      case SEQUENCE:
      case MAPPING:
      case SCALAR:
        if (event.anchorStart !== -1 || event.tagStart !== -1) return false;
        break;
      case POP:
        break;
      case ALIAS:
        return false;
    }
  }
  return documents === 1;
}

/** The tree of node offsets, built from the events once a location is first asked for. */
function indexSpots(yaml: string, events: readonly Event[]): Spot {
  let next = 1; // events[0] is the document
  const read = (): Spot => {
    const event = events[next++];
    if (event?.type === SCALAR) return { start: scalarStart(event) };
    if (event?.type === SEQUENCE) {
      const items: Spot[] = [];
      while (events[next]?.type !== POP) items.push(read());
      next++;
      return { start: event.start, items };
    }
    if (event?.type === MAPPING) {
      const keys = new Map<string, { key: number; node: Spot }>();
      while (events[next]?.type !== POP) {
        const keyEvent = events[next];
        const key = keyEvent?.type === SCALAR ? scalarKey(yaml, keyEvent) : null;
        const keyStart = read().start;
        const node = read();
        if (key !== null && keyStart !== null) keys.set(key, { key: keyStart, node });
      }
      next++;
      return { start: event.start, keys };
    }
    return { start: null };
  };
  return read();
}

function scalarStart(event: ScalarEvent): number | null {
  if (event.valueStart === -1) return null; // an empty value: the `yaml` library places it itself
  if (event.style === PLAIN) return event.valueStart;
  if (event.style === SINGLE_QUOTED || event.style === DOUBLE_QUOTED) return event.valueStart - 1;
  return null; // block scalars: the `yaml` library starts them at their `|` or `>` header
}

/** A key's string as the plain data has it, when that is certain; null otherwise. */
function scalarKey(yaml: string, event: ScalarEvent): string | null {
  if (event.style === SINGLE_QUOTED || event.style === DOUBLE_QUOTED) return getScalarValue(yaml, event);
  if (event.style !== PLAIN) return null;
  const text = yaml.slice(event.valueStart, event.valueEnd);
  return SAFE_PLAIN_KEY.test(text) && !NOT_STRINGS.has(text) ? text : null;
}

function findSpot(root: Spot, path: YamlPath): FastSpot | null {
  let spot = root;
  let key: number | null = null;
  for (const segment of path) {
    if (spot.keys) {
      const entry = spot.keys.get(String(segment));
      if (!entry) return null;
      key = entry.key;
      spot = entry.node;
    } else if (spot.items && typeof segment === "number") {
      const item = spot.items[segment];
      if (!item) return null;
      key = null;
      spot = item;
    } else {
      return null;
    }
  }
  return { value: spot.start, key };
}
