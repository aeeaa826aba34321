import { quoteShellWord } from "../session/hook-settings.ts";

/**
 * The stage's `setup` commands as one shell script, as the reference joins them (`a && b`): they
 * run in order in one shell, so what one sets (`cd`, `export`, `source`) reaches the next, and the
 * first that fails stops it, naming itself (number, exit code, command) on stderr.
 */
export function buildSetupScript(setup: readonly string[]): string {
  return setup
    .map(
      (command, i) =>
        `{ ${command}\n} || { loom_setup_exit=$?; printf '%s\\n' ${quoteShellWord(`setup command ${i + 1} of ${setup.length} failed:`)} ${quoteShellWord(command)} "exit code $loom_setup_exit" >&2; exit $loom_setup_exit; }`,
    )
    .join("\n");
}

/** `command` after the setup script, in the same shell (the reference's `setup && command`). */
export function prefixSetup(setup: readonly string[], command: string): string {
  return setup.length === 0 ? command : `${buildSetupScript(setup)}\n${command}`;
}
