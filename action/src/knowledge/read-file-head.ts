import { constants } from "node:fs";
import { open } from "node:fs/promises";

/**
 * The first `max` bytes of a file as text: a session cannot make the runner read a huge file. The
 * path is opened without following a link (a session, or a committed symlink, must not make the
 * runner read its own /proc/<pid>/environ or a root-only file) and without blocking on a FIFO.
 */
export async function readFileHead(file: string, max: number): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    // Only a regular file: a FIFO or a device the session left there is not read.
    if (!(await handle.stat()).isFile())
      throw Object.assign(new Error("not a regular file"), { code: "ENOTFILE" });
    const buffer = Buffer.alloc(max);
    const { bytesRead } = await handle.read(buffer, 0, max, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}
