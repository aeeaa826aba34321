/** Sends a signal to a whole process group. Returns false when the group is already gone. */
export function killProcessGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw new Error(`could not signal process group ${pgid}`, { cause: error });
  }
}

/** True while any process of the group is alive (zombies included). */
export function isProcessGroupAlive(pgid: number): boolean {
  return killProcessGroup(pgid, 0);
}
