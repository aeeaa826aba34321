import { parseDocument } from "yaml";
import type { Document } from "yaml";
import type { Diagnostics } from "./diagnostics.ts";
import type { LineIndex } from "./line-index.ts";
import { locateOffset } from "./line-index.ts";
import { PLAN_LIMITS } from "./plan.ts";
import type { YamlLocator } from "./yaml-locator.ts";

/** Flow collections (`[`, `{`) nested deeper than this are refused before parsing (stack safety). */
const MAX_FLOW_DEPTH = 200;
/** Char codes of `[`, `{`, `]`, `}`: comparing codes avoids a one-character string per yaml character. */
const [OPEN_SQUARE, OPEN_CURLY, CLOSE_SQUARE, CLOSE_CURLY] = [0x5b, 0x7b, 0x5d, 0x7d] as const;

const YAML_OPTIONS = { prettyErrors: false, uniqueKeys: true } as const;

/**
 * The yaml's document when the `yaml` library reads it without an error or a warning, and its
 * plain data within the alias limit; null otherwise (`parseYaml` and `resolveYaml` then say why).
 */
export function readYamlDocument(yaml: string): { doc: Document; value: unknown } | null {
  try {
    const doc = parseDocument(yaml, YAML_OPTIONS);
    if (doc.errors.length > 0 || doc.warnings.length > 0) return null;
    return { doc, value: doc.toJS({ maxAliasCount: PLAN_LIMITS.maxAliasCount }) as unknown };
  } catch (error) {
    if (error instanceof RangeError || error instanceof ReferenceError) return null;
    throw error;
  }
}

/** Parses the yaml; reports syntax errors (and YAML warnings) at their markdown position. */
export function parseYaml(
  yaml: string,
  yamlOffset: number,
  lines: LineIndex,
  report: Diagnostics,
): Document | null {
  const at = (offset: number) => locateOffset(lines, yamlOffset + offset);
  if (yaml.length === 0) {
    report.error("the loom METADATA yaml block is empty", at(0));
    return null;
  }
  const tooDeep = findExcessiveNesting(yaml, MAX_FLOW_DEPTH);
  if (tooDeep !== -1) {
    report.error(`the METADATA yaml nests brackets more than ${MAX_FLOW_DEPTH} levels deep`, at(tooDeep));
    return null;
  }
  let doc: Document;
  try {
    doc = parseDocument(yaml, YAML_OPTIONS);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    report.error("the METADATA yaml is nested too deeply to read", at(0));
    return null;
  }
  for (const warning of doc.warnings) report.warning(`YAML: ${warning.message}`, at(warning.pos[0]));
  for (const error of doc.errors) report.error(`YAML syntax: ${error.message}`, at(error.pos[0]));
  return doc.errors.length > 0 ? null : doc;
}

/** The yaml as plain data, refusing alias bombs (`maxAliasCount`); undefined when refused. */
export function resolveYaml(doc: Document, at: YamlLocator, report: Diagnostics): unknown {
  try {
    return doc.toJS({ maxAliasCount: PLAN_LIMITS.maxAliasCount }) as unknown;
  } catch (error) {
    if (error instanceof ReferenceError) {
      report.error(
        `YAML aliases expand too much (more than ${PLAN_LIMITS.maxAliasCount} aliased nodes): ${error.message}`,
        at.value([]),
      );
      return undefined;
    }
    if (error instanceof RangeError) {
      report.error("the METADATA yaml is nested too deeply to read", at.value([]));
      return undefined;
    }
    throw error;
  }
}

/**
 * Offset where `[`/`{` nesting first passes `limit`, or -1. Counts every bracket, quoted or not:
 * a plan that legitimately opens 200 brackets in a row does not exist, a stack-overflow attack does.
 */
function findExcessiveNesting(yaml: string, limit: number): number {
  let depth = 0;
  for (let i = 0; i < yaml.length; i++) {
    const code = yaml.charCodeAt(i);
    if (code === OPEN_SQUARE || code === OPEN_CURLY) {
      if (++depth > limit) return i;
    } else if ((code === CLOSE_SQUARE || code === CLOSE_CURLY) && depth > 0) depth--;
  }
  return -1;
}
