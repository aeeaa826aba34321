import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

/**
 * The first `max` bytes of a file the session wrote, or null when there is none. The session owns
 * the folder: the path is opened without following a link (a link to the action's own
 * `/proc/<pid>/environ` or to a root-only file must not make the action read it for the session),
 * without blocking (a FIFO), and only a regular file is read.
 */
export function readSessionFile(file: string, max: number): string | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null; // missing, a link, or unreadable: nothing the session left counts
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buffer = Buffer.alloc(max);
    const read = readSync(fd, buffer, 0, max, 0);
    return buffer.subarray(0, read).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
