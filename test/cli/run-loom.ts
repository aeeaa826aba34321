import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export type CliRun = { code: number | null; stdout: string; stderr: string };

/** Runs the real CLI as the docs show it (`node bin/loom.js …`) from the repository root. */
export function runLoom(args: readonly string[], node = process.execPath): CliRun {
  const result = spawnSync(node, ["bin/loom.js", ...args], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    timeout: 60_000,
  });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Runs a documented command line as written, through the shell, from the repository root (or
 * `cwd`, a copy of it), with this Node first on PATH. npm may not reach the registry (`npx loom`
 * must resolve the checkout's own bin, never download the unrelated npm package named loom).
 */
export function runShell(command: string, cwd = REPO_ROOT): CliRun {
  const bin = fileURLToPath(new URL(".", `file://${process.execPath}`));
  const result = spawnSync("sh", ["-c", command], {
    cwd,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, PATH: `${bin}:${process.env["PATH"] ?? ""}`, npm_config_offline: "true" },
  });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
