import { crc32, inflateRawSync } from "node:zlib";

/**
 * A small reader for the zip archives GitHub serves artifacts as: the central directory, stored
 * (0) and deflated (8) entries, sizes bounded before anything is inflated, CRC-32 checked.
 * No ZIP64, no encryption: artifacts loom reads are a few small JSON files.
 */

export type ZipLimits = { maxEntries: number; maxEntryBytes: number; maxTotalBytes: number };

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: 100,
  maxEntryBytes: 8 * 1024 * 1024,
  maxTotalBytes: 32 * 1024 * 1024,
};

export type ZipResult = { ok: true; files: Map<string, Buffer> } | { ok: false; reason: string };

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

function findEndOfCentralDirectory(data: Buffer): number {
  const last = data.length - 22;
  for (let at = last; at >= Math.max(0, last - 0xffff); at--) {
    if (data.readUInt32LE(at) === EOCD) return at;
  }
  return -1;
}

type Entry = {
  name: string;
  method: number;
  flags: number;
  compressed: number;
  size: number;
  crc: number;
  local: number;
};

function readEntries(data: Buffer, limits: ZipLimits): Entry[] | string {
  const end = findEndOfCentralDirectory(data);
  if (end < 0) return "not a zip archive (no end of central directory)";
  const count = data.readUInt16LE(end + 10);
  const offset = data.readUInt32LE(end + 16);
  if (count === 0xffff || offset === 0xffffffff) return "ZIP64 archives are not supported";
  if (count > limits.maxEntries) return `too many entries (${count} > ${limits.maxEntries})`;
  const entries: Entry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > data.length || data.readUInt32LE(at) !== CENTRAL)
      return `broken central directory entry ${i}`;
    const nameLength = data.readUInt16LE(at + 28);
    const next = at + 46 + nameLength + data.readUInt16LE(at + 30) + data.readUInt16LE(at + 32);
    if (next > data.length) return `broken central directory entry ${i}`;
    entries.push({
      flags: data.readUInt16LE(at + 8),
      method: data.readUInt16LE(at + 10),
      crc: data.readUInt32LE(at + 16),
      compressed: data.readUInt32LE(at + 20),
      size: data.readUInt32LE(at + 24),
      local: data.readUInt32LE(at + 42),
      name: data.toString("utf8", at + 46, at + 46 + nameLength),
    });
    at = next;
  }
  return entries;
}

function readEntry(data: Buffer, entry: Entry, limits: ZipLimits): Buffer | string {
  if (entry.flags & 1) return `${entry.name} is encrypted`;
  if (entry.size > limits.maxEntryBytes) return `${entry.name} is too large (${entry.size} bytes)`;
  if (entry.local + 30 > data.length || data.readUInt32LE(entry.local) !== LOCAL)
    return `broken local header of ${entry.name}`;
  const start = entry.local + 30 + data.readUInt16LE(entry.local + 26) + data.readUInt16LE(entry.local + 28);
  if (start + entry.compressed > data.length) return `${entry.name} is cut short`;
  const raw = data.subarray(start, start + entry.compressed);
  let content: Buffer;
  if (entry.method === 0) content = Buffer.from(raw);
  else if (entry.method === 8) {
    try {
      content = inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.size) });
    } catch (error) {
      return `${entry.name} does not inflate: ${(error as Error).message}`;
    }
  } else return `${entry.name} uses unsupported compression method ${entry.method}`;
  if (content.length !== entry.size) return `${entry.name} has the wrong size`;
  if (crc32(content) !== entry.crc) return `${entry.name} fails its CRC check`;
  return content;
}

/** The files of a zip archive by path (directories left out), or why it cannot be read. */
export function readZip(archive: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS): ZipResult {
  const data = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  const entries = readEntries(data, limits);
  if (typeof entries === "string") return { ok: false, reason: entries };
  const total = entries.reduce((sum, e) => sum + e.size, 0);
  if (total > limits.maxTotalBytes)
    return { ok: false, reason: `archive too large when unpacked (${total} bytes)` };
  const files = new Map<string, Buffer>();
  for (const entry of entries) {
    if (entry.name.endsWith("/")) continue;
    const content = readEntry(data, entry, limits);
    if (typeof content === "string") return { ok: false, reason: content };
    files.set(entry.name, content);
  }
  return { ok: true, files };
}
