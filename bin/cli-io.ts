import { open } from "node:fs/promises";

/** What the CLI needs from the outside world; tests pass a fake. */
export type CliIo = {
  /** Reads a file as UTF-8, at most `maxBytes + 1` bytes (enough to tell it is too large). */
  readText(
    path: string,
    maxBytes: number,
  ): Promise<{ ok: true; text: string } | { ok: false; reason: string }>;
  stdout(text: string): void;
  stderr(text: string): void;
};

export function createNodeIo(): CliIo {
  return {
    readText: readTextFile,
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
  };
}

async function readTextFile(
  path: string,
  maxBytes: number,
): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
  let handle;
  try {
    handle = await open(path, "r");
    const stat = await handle.stat();
    if (!stat.isFile()) return { ok: false, reason: "not a regular file" };
    const buffer = Buffer.alloc(Math.min(stat.size, maxBytes + 1));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { ok: true, text: buffer.subarray(0, bytesRead).toString("utf8") };
  } catch (error) {
    const code = error instanceof Error && "code" in error ? String(error.code) : "";
    return {
      ok: false,
      reason: code === "ENOENT" ? "no such file" : error instanceof Error ? error.message : String(error),
    };
  } finally {
    await handle?.close();
  }
}
