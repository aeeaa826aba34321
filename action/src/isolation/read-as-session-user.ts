import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { planSpawn } from "./plan-spawn.ts";
import type { SessionSandbox } from "./session-isolation.ts";

/**
 * A file the session wrote, read with no more rights than the session had: as the session user
 * (`cat` started as that user), or without isolation by the action itself, refusing a link in the
 * last step and anything but a regular file. Null when it is missing, unreadable or over
 * `maxBytes`: a session must not make the action read, through a link it planted, what it could
 * not read itself.
 */
export async function readAsSessionUser(
  sandbox: SessionSandbox | undefined,
  file: string,
  maxBytes: number,
): Promise<string | null> {
  if (sandbox === undefined || sandbox.isolation.kind === "none") return readOwnFile(file, maxBytes);
  const plan = planSpawn(sandbox, "cat", ["--", file], { PATH: "/usr/bin:/bin" });
  return new Promise((resolve) => {
    const child = spawn(plan.command, plan.args, {
      env: plan.env,
      ...(plan.uid === undefined ? {} : { uid: plan.uid }),
      ...(plan.gid === undefined ? {} : { gid: plan.gid }),
      stdio: ["ignore", "pipe", "ignore"],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        tooBig = true;
        child.kill("SIGKILL");
        return;
      }
      chunks.push(chunk);
    });
    child.once("error", () => resolve(null));
    child.once("close", (code) =>
      resolve(code === 0 && !tooBig ? Buffer.concat(chunks).toString("utf8") : null),
    );
  });
}

async function readOwnFile(file: string, maxBytes: number): Promise<string | null> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    () => null, // missing, a link, or unreadable: nothing the session left counts
  );
  if (handle === null) return null;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return null;
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}
