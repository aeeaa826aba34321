import { unzipSync } from "fflate";
import type { UnzipFileInfo } from "fflate";

/**
 * Reads the zip archives GitHub serves artifacts as, with `fflate`. Sizes are bounded before
 * anything is inflated: `unzipSync` gives every entry an output buffer of its declared size, so the
 * filter refuses an archive whose entry count or declared sizes pass the limits before a byte is
 * allocated for them, and an entry that inflates to more than it declared is cut at that size.
 *
 * `fflate` checks no CRC: a corrupted entry shows as a deflate error or a size that differs from
 * the declared one, or else as content the JSON and zod readers after this refuse.
 */

export type ZipLimits = { maxEntries: number; maxEntryBytes: number; maxTotalBytes: number };

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: 100,
  maxEntryBytes: 8 * 1024 * 1024,
  maxTotalBytes: 32 * 1024 * 1024,
};

export type ZipResult = { ok: true; files: Map<string, Buffer> } | { ok: false; reason: string };

/** Thrown from the filter to stop `unzipSync` before it inflates anything more. */
class ZipRefusal extends Error {
  override name = "ZipRefusal";
}

/** Refuses entries past the limits, by what the archive declares; remembers declared sizes. */
function createLimitFilter(limits: ZipLimits, declared: Map<string, number>) {
  let entries = 0;
  let total = 0;
  return (file: UnzipFileInfo): boolean => {
    entries++;
    if (entries > limits.maxEntries)
      throw new ZipRefusal(`too many entries (more than ${limits.maxEntries})`);
    if (file.name.endsWith("/")) return false;
    if (file.compression !== 0 && file.compression !== 8)
      throw new ZipRefusal(`${file.name} uses unsupported compression method ${file.compression}`);
    if (file.originalSize > limits.maxEntryBytes)
      throw new ZipRefusal(`${file.name} is too large (${file.originalSize} bytes)`);
    total += file.originalSize;
    if (total > limits.maxTotalBytes)
      throw new ZipRefusal(`archive too large when unpacked (more than ${limits.maxTotalBytes} bytes)`);
    declared.set(file.name, file.originalSize);
    return true;
  };
}

/** The files of a zip archive by path (directories left out), or why it cannot be read. */
export function readZip(archive: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS): ZipResult {
  const declared = new Map<string, number>();
  let unzipped: Record<string, Uint8Array>;
  try {
    unzipped = unzipSync(archive, { filter: createLimitFilter(limits, declared) });
  } catch (error) {
    if (error instanceof ZipRefusal) return { ok: false, reason: error.message };
    // fflate's own errors: not a zip, a broken directory, data that does not inflate.
    return { ok: false, reason: `not a readable zip archive (${(error as Error).message})` };
  }
  const files = new Map<string, Buffer>();
  let total = 0;
  for (const [name, content] of Object.entries(unzipped)) {
    if (content.length !== declared.get(name)) return { ok: false, reason: `${name} has the wrong size` };
    total += content.length;
    files.set(name, Buffer.from(content.buffer, content.byteOffset, content.byteLength));
  }
  if (total > limits.maxTotalBytes)
    return { ok: false, reason: `archive too large when unpacked (${total} bytes)` };
  return { ok: true, files };
}
