import { open, stat } from "node:fs/promises";

/** The first `max` bytes of a file as text: a session cannot make the runner read a huge file. */
export async function readFileHead(file: string, max: number): Promise<string> {
  // Only a regular file: opening a FIFO the session left there would block the runner.
  if (!(await stat(file)).isFile())
    throw Object.assign(new Error("not a regular file"), { code: "ENOTFILE" });
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(max);
    const { bytesRead } = await handle.read(buffer, 0, max, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}
