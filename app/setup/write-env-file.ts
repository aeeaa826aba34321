import { chmodSync, readFileSync, writeFileSync } from "node:fs";

/**
 * Writes `values` into the `.env` file at `path` the way a person would edit it: a key already set
 * there has its line replaced, a new key is appended, and every other line (comments, settings
 * written by hand) stays as it was. Probot's own writer rewrites the file from its parsed values and
 * drops the comments. Newlines in values are written as `\n` (Probot quotes the private key, and
 * the `.env` reader expands `\n` inside double quotes). The file holds the App's private key, so it
 * is readable by its owner only.
 */
export function writeEnvFile(path: string, values: Record<string, string>): void {
  let lines: string[] = [];
  try {
    lines = readFileSync(path, "utf8").split("\n");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      throw new Error(`cannot read ${path}`, { cause: error });
  }
  if (lines.at(-1) === "") lines.pop();
  for (const [key, value] of Object.entries(values)) {
    const line = `${key}=${value.replace(/\r?\n/g, "\\n")}`;
    const at = lines.findIndex((existing) => new RegExp(`^\\s*(export\\s+)?${key}\\s*=`).test(existing));
    if (at === -1) lines.push(line);
    else lines[at] = line;
  }
  writeFileSync(path, `${lines.join("\n")}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}
