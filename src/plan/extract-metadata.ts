export const METADATA_START = "<!-- loom METADATA";
export const METADATA_END = "<!-- END loom METADATA";

/** Why a plan has no readable METADATA yaml; each names the offset a person should look at. */
export const METADATA_PROBLEMS = [
  "no-metadata-block",
  "no-end-marker",
  "no-yaml-fence",
  "no-closing-fence",
] as const;
export type MetadataProblem = (typeof METADATA_PROBLEMS)[number];

export type MetadataExtraction =
  | {
      ok: true;
      /** The yaml between the fences, trimmed (what the reference CLI parses). */
      yaml: string;
      /** Offset of `yaml`'s first character in the markdown text. */
      yamlOffset: number;
      /** Offset of the `<!-- loom METADATA` marker. */
      markerOffset: number;
      /** Offset of the opening backticks. */
      fenceOffset: number;
    }
  | { ok: false; problem: MetadataProblem; offset: number; message: string };

/**
 * Finds the stages yaml the way the reference CLI does: the first `<!-- loom METADATA` marker,
 * the first `<!-- END loom METADATA` after it, and between them the first run of three or more
 * backticks directly followed by `yaml`; the yaml ends at the next run of that many backticks.
 */
export function extractMetadata(text: string): MetadataExtraction {
  const markerOffset = text.indexOf(METADATA_START);
  if (markerOffset === -1) {
    return failWith(
      "no-metadata-block",
      0,
      `no loom METADATA block: add "${METADATA_START} -->", a \`\`\`yaml block with the stages, and "${METADATA_END} -->"`,
    );
  }
  const endOffset = text.indexOf(METADATA_END, markerOffset);
  if (endOffset === -1) {
    return failWith(
      "no-end-marker",
      markerOffset,
      `loom METADATA block has no "${METADATA_END} -->" marker after it`,
    );
  }
  const fence = findYamlFence(text, markerOffset, endOffset);
  if (!fence) {
    return failWith(
      "no-yaml-fence",
      markerOffset,
      "loom METADATA block has no ```yaml fence before its END marker",
    );
  }
  const bodyStart = fence.offset + fence.length + "yaml".length;
  const closing = "`".repeat(fence.length);
  const bodyEnd = text.indexOf(closing, bodyStart);
  if (bodyEnd === -1 || bodyEnd + closing.length > endOffset) {
    return failWith(
      "no-closing-fence",
      fence.offset,
      `the ${closing}yaml fence in the loom METADATA block is never closed with ${closing}`,
    );
  }
  const raw = text.slice(bodyStart, bodyEnd);
  const leading = raw.length - raw.trimStart().length;
  return {
    ok: true,
    yaml: raw.trim(),
    yamlOffset: bodyStart + leading,
    markerOffset,
    fenceOffset: fence.offset,
  };
}

function findYamlFence(text: string, from: number, to: number): { offset: number; length: number } | null {
  let at = text.indexOf("`", from);
  while (at !== -1 && at < to) {
    let length = 0;
    while (at + length < to && text[at + length] === "`") length++;
    if (length >= 3 && text.startsWith("yaml", at + length) && at + length + 4 <= to)
      return { offset: at, length };
    at = text.indexOf("`", at + length);
  }
  return null;
}

function failWith(problem: MetadataProblem, offset: number, message: string): MetadataExtraction {
  return { ok: false, problem, offset, message };
}
