/**
 * The header of a git bundle (v2 or v3): prerequisites (`-<sha> <comment>`) and refs
 * (`<sha> <refname>`), up to the blank line before the pack. Read by publish itself so that a
 * bundle's refs are judged before git fetches anything from it.
 */
export type BundleHeader = {
  version: 2 | 3;
  prerequisites: string[];
  refs: { sha: string; ref: string }[];
};

export type BundleHeaderRead = { ok: true; header: BundleHeader } | { ok: false; reason: string };

const SIGNATURES = { "# v2 git bundle": 2, "# v3 git bundle": 3 } as const;
const MAX_HEADER_BYTES = 1024 * 1024;

export function parseBundleHeader(bytes: Uint8Array): BundleHeaderRead {
  const limit = Math.min(bytes.length, MAX_HEADER_BYTES);
  let end = -1;
  for (let i = 0; i + 1 < limit; i += 1) {
    if (bytes[i] === 10 && bytes[i + 1] === 10) {
      end = i;
      break;
    }
  }
  if (end === -1) return { ok: false, reason: "no bundle header (no blank line before the pack)" };
  const lines = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, end)).split("\n");
  const signature = lines[0] ?? "";
  const version = signature in SIGNATURES ? SIGNATURES[signature as keyof typeof SIGNATURES] : null;
  if (version === null) return { ok: false, reason: "not a git bundle (unknown signature)" };
  const header: BundleHeader = { version, prerequisites: [], refs: [] };
  for (const line of lines.slice(1)) {
    if (version === 3 && line.startsWith("@")) continue;
    const prerequisite = /^-([0-9a-f]{40}|[0-9a-f]{64})(?: .*)?$/.exec(line);
    if (prerequisite?.[1] !== undefined) {
      header.prerequisites.push(prerequisite[1]);
      continue;
    }
    const ref = /^([0-9a-f]{40}|[0-9a-f]{64}) (\S+)$/.exec(line);
    if (ref?.[1] === undefined || ref[2] === undefined) {
      return { ok: false, reason: `unreadable bundle header line: ${JSON.stringify(line.slice(0, 120))}` };
    }
    header.refs.push({ sha: ref[1], ref: ref[2] });
  }
  return { ok: true, header };
}
