import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { unzipSync } from "fflate";

/** Limits for artifacts the action reads back (results, heartbeats: small JSON files). */
export const ZIP_LIMITS = { maxFiles: 100, maxFileBytes: 16 * 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024 };

export class ZipRefusedError extends Error {
  override readonly name = "ZipRefusedError";
}

/**
 * Unpacks an artifact zip (what `GET …/actions/artifacts/{id}/zip` serves) into `directory`.
 * Refuses, before inflating anything, archives over the limits and entries that would land
 * outside `directory`; folders are skipped (files create their own).
 */
export async function extractZip(zip: Uint8Array, directory: string, limits = ZIP_LIMITS): Promise<string[]> {
  const root = path.resolve(directory);
  let count = 0;
  let total = 0;
  const files = unzipSync(zip, {
    filter: (entry) => {
      if (entry.name.endsWith("/")) return false;
      const target = path.resolve(root, entry.name);
      if (path.isAbsolute(entry.name) || !target.startsWith(`${root}${path.sep}`))
        throw new ZipRefusedError(`the zip entry ${entry.name} leaves the download folder`);
      count += 1;
      total += entry.originalSize;
      if (count > limits.maxFiles)
        throw new ZipRefusedError(`the zip has more than ${limits.maxFiles} files`);
      if (entry.originalSize > limits.maxFileBytes)
        throw new ZipRefusedError(`${entry.name} unpacks to more than ${limits.maxFileBytes} bytes`);
      if (total > limits.maxTotalBytes)
        throw new ZipRefusedError(`the zip unpacks to more than ${limits.maxTotalBytes} bytes`);
      return true;
    },
  });
  const written: string[] = [];
  for (const [name, content] of Object.entries(files)) {
    if (content.length > limits.maxFileBytes)
      throw new ZipRefusedError(`${name} unpacks to more than its declared size`);
    const target = path.resolve(root, name);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
    written.push(target);
  }
  return written;
}
