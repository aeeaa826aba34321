import type { HostRun } from "./run-host-command.ts";
import type { SessionIsolation } from "./session-isolation.ts";

/** What `prepareIsolation` needs from the machine: who the action runs as, and a way to run programs. */
export type IsolationHost = {
  uid: number;
  run: (command: string, args: readonly string[]) => Promise<HostRun>;
};

const firstLine = (text: string): string => text.trim().split("\n")[0]?.slice(0, 200) ?? "";

/**
 * Finds out how this runner can run the session as a separate user, creating that user when it is
 * missing: as root directly; otherwise through passwordless sudo (GitHub-hosted Linux runners have
 * it); otherwise not at all, with the reason (a self-hosted runner without sudo). A user that is
 * root, the action's own user or a member of other groups is refused: it would not keep the
 * session away from anything.
 */
export async function prepareIsolation(host: IsolationHost, user: string): Promise<SessionIsolation> {
  const none = (reason: string): SessionIsolation => ({ kind: "none", reason });
  let via: "root" | "sudo" = "root";
  if (host.uid !== 0) {
    const probe = await host.run("sudo", ["-n", "true"]);
    if (probe.code !== 0)
      return none(
        `the action runs as uid ${host.uid}, not root, and has no passwordless sudo (sudo -n true: ${firstLine(probe.stderr) || `exit ${probe.code}`})`,
      );
    via = "sudo";
  }
  const privileged = (command: string, args: readonly string[]): Promise<HostRun> =>
    via === "root" ? host.run(command, args) : host.run("sudo", ["-n", command, ...args]);
  let ids = await readIds(host, user);
  const created = ids === null;
  if (ids === null) {
    // GNU useradd: exit 9 is "username already in use" (another job on this runner made it meanwhile).
    const made = await privileged("useradd", [
      "--system",
      "--user-group",
      "--no-create-home",
      "--home-dir",
      "/nonexistent",
      "--shell",
      "/bin/bash",
      user,
    ]);
    ids = await readIds(host, user);
    if (ids === null)
      return none(
        `could not create the user ${user} (useradd: ${firstLine(made.stderr) || `exit ${made.code}`})`,
      );
  }
  if (ids.uid === 0 || ids.uid === host.uid)
    return none(`the user ${user} has uid ${ids.uid}, the same as root or the action's own user`);
  const extra = ids.groups.filter((group) => group !== ids.gid);
  if (extra.length > 0)
    return none(
      `the user ${user} is in other groups too (${extra.join(", ")}): loom wants an unprivileged user`,
    );
  return { kind: "user", user, uid: ids.uid, gid: ids.gid, via, created };
}

async function readIds(
  host: IsolationHost,
  user: string,
): Promise<{ uid: number; gid: number; groups: number[] } | null> {
  const [uid, gid, groups] = await Promise.all(
    ["-u", "-g", "-G"].map((flag) => host.run("id", [flag, user])),
  );
  const numbers = (run: HostRun | undefined): number[] | null => {
    if (run === undefined || run.code !== 0) return null;
    const parts = run.stdout.trim().split(/\s+/);
    return parts.every((part) => /^\d+$/.test(part)) ? parts.map(Number) : null;
  };
  const [u] = numbers(uid) ?? [];
  const [g] = numbers(gid) ?? [];
  const all = numbers(groups);
  return u === undefined || g === undefined || all === null ? null : { uid: u, gid: g, groups: all };
}
