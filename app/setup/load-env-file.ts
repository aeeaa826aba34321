import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";

/**
 * Applies the `.env` file at `path` to `env` exactly as Probot's `run()` does later (its values win
 * over the environment), so that loom reads the same settings Probot will: on a restart after the
 * manifest flow, APP_ID and the store settings exist only in `.env`. A missing file changes nothing.
 */
export function loadEnvFile(env: Record<string, string | undefined>, path: string): void {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new Error(`cannot read ${path}`, { cause: error });
  }
  Object.assign(env, parseEnv(text));
}
