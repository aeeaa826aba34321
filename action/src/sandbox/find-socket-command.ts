import { readdir, readFile, readlink } from "node:fs/promises";

/**
 * The command line of the process holding the loopback TCP socket whose local port is `port` (a
 * client of the egress proxy, seen from the proxy as its remote port), or undefined when it cannot
 * be told (the process ended, /proc is closed to the action). Linux only: /proc/net/tcp gives the
 * socket's inode, /proc/<pid>/fd the process holding it.
 */
export async function findSocketCommand(port: number, procRoot = "/proc"): Promise<string | undefined> {
  const inode = await findInode(port, procRoot);
  if (inode === undefined) return undefined;
  const link = `socket:[${inode}]`;
  const pids = (await readdir(procRoot).catch(() => [] as string[])).filter((name) => /^\d+$/.test(name));
  for (const pid of pids) {
    const fds = await readdir(`${procRoot}/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      if ((await readlink(`${procRoot}/${pid}/fd/${fd}`).catch(() => "")) !== link) continue;
      const cmdline = await readFile(`${procRoot}/${pid}/cmdline`, "utf8").catch(() => "");
      const command = cmdline.split("\0").filter(Boolean).join(" ");
      return command === "" ? undefined : command.slice(0, 300);
    }
  }
  return undefined;
}

async function findInode(port: number, procRoot: string): Promise<string | undefined> {
  const hex = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["tcp", "tcp6"]) {
    const text = await readFile(`${procRoot}/net/${table}`, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (fields[1]?.endsWith(`:${hex}`) && fields[9] !== undefined && fields[9] !== "0") return fields[9];
    }
  }
  return undefined;
}
