/**
 * A throwaway place to run the real Claude Code binary against `fake-model-server.ts`: a private
 * HOME / CLAUDE_CONFIG_DIR, a git repository with one commit as the working directory, and a state
 * directory for loom's session files.
 *
 * ```ts
 * const box = createSandbox();
 * const env = box.claudeEnv(server.url); // for spawn / runSession({ env })
 * box.cleanup();
 * ```
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const CLAUDE_PATH = resolve(import.meta.dirname, "../../node_modules/.bin/claude");
export const HOOKS_DIR = resolve(import.meta.dirname, "../../hooks");

export type Sandbox = {
  dir: string;
  home: string;
  repo: string;
  stateDir: string;
  claudeEnv(baseUrl: string): Record<string, string>;
  git(...args: string[]): string;
  cleanup(): void;
};

export function createSandbox(): Sandbox {
  const dir = mkdtempSync(join(tmpdir(), "loom-session-"));
  const home = join(dir, "home");
  const repo = join(dir, "repo");
  const stateDir = join(dir, "state");
  for (const path of [home, repo, stateDir]) mkdirSync(path, { recursive: true });
  const git = (...args: string[]): string =>
    execFileSync("git", args, {
      cwd: repo,
      encoding: "utf8",
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@example.com",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@example.com",
      },
    });
  git("init", "-q", "-b", "main");
  writeFileSync(join(repo, "README.md"), "# sandbox\n");
  git("add", "README.md");
  git("commit", "-q", "-m", "initial");
  return {
    dir,
    home,
    repo,
    stateDir,
    git,
    claudeEnv: (baseUrl) => ({
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, ".claude"),
      ANTHROPIC_BASE_URL: baseUrl,
      ANTHROPIC_API_KEY: "sk-ant-test-not-a-key",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      GIT_AUTHOR_NAME: "agent",
      GIT_AUTHOR_EMAIL: "agent@example.com",
      GIT_COMMITTER_NAME: "agent",
      GIT_COMMITTER_EMAIL: "agent@example.com",
    }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
