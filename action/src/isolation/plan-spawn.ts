import type { SessionSandbox } from "./session-isolation.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** What to hand `spawn`: the program, its arguments, its environment and the user to run it as. */
export type SpawnPlan = {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  uid?: number;
  gid?: number;
};

/** Variables that point into the action user's home: the session user gets its own. */
const isHomeVariable = (name: string): boolean =>
  name === "HOME" || name === "CLAUDE_CONFIG_DIR" || name === "TMPDIR" || name.startsWith("XDG_");

/**
 * How to start `command` as the session user with exactly `env` (plus its own HOME, USER and
 * LOGNAME). As root: Node's `uid`/`gid` spawn options (libuv drops the supplementary groups too).
 * Through sudo: `sudo -n -u <user> --preserve-env=<names> -- /usr/bin/env PATH=… HOME=… <command>`,
 * started with `env` as sudo's environment: the values never appear on a command line (which every
 * user can read in /proc), and PATH and HOME, which sudo resets, are set again by env(1).
 */
export function planSpawn(
  sandbox: SessionSandbox | undefined,
  command: string,
  args: readonly string[],
  env: Env,
): SpawnPlan {
  const isolation = sandbox?.isolation;
  if (sandbox === undefined || isolation === undefined || isolation.kind === "none")
    return { command, args: [...args], env: { ...env } };
  const own: Record<string, string> = Object.fromEntries(
    Object.entries(env).flatMap(([name, value]) =>
      isHomeVariable(name) || value === undefined ? [] : [[name, value] as const],
    ),
  );
  const userEnv: Record<string, string> = {
    ...own,
    HOME: sandbox.home,
    USER: isolation.user,
    LOGNAME: isolation.user,
  };
  if (isolation.via === "root")
    return { command, args: [...args], env: userEnv, uid: isolation.uid, gid: isolation.gid };
  const kept = Object.keys(userEnv).filter((name) => name !== "PATH" && name !== "HOME");
  return {
    command: "sudo",
    args: [
      "-n",
      "-u",
      isolation.user,
      `--preserve-env=${kept.join(",")}`,
      "--",
      "/usr/bin/env",
      `PATH=${userEnv.PATH ?? "/usr/local/bin:/usr/bin:/bin"}`,
      `HOME=${sandbox.home}`,
      command,
      ...args,
    ],
    env: userEnv,
  };
}
