import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";

/** The files a step writes to talk to the runner (`$GITHUB_OUTPUT`, `$GITHUB_ENV`, …), fresh for each step. */
export type RunnerFiles = Record<
  "GITHUB_OUTPUT" | "GITHUB_ENV" | "GITHUB_PATH" | "GITHUB_STEP_SUMMARY" | "GITHUB_STATE",
  string
>;

export async function createRunnerFiles(dir: string): Promise<RunnerFiles> {
  const id = randomUUID();
  const files: RunnerFiles = {
    GITHUB_OUTPUT: path.join(dir, `set_output_${id}`),
    GITHUB_ENV: path.join(dir, `set_env_${id}`),
    GITHUB_PATH: path.join(dir, `add_path_${id}`),
    GITHUB_STEP_SUMMARY: path.join(dir, `step_summary_${id}`),
    GITHUB_STATE: path.join(dir, `save_state_${id}`),
  };
  await Promise.all(Object.values(files).map((file) => writeFile(file, "")));
  return files;
}

/** `name=value` lines and `name<<DELIMITER` … `DELIMITER` blocks, as the runner reads `$GITHUB_OUTPUT`, `$GITHUB_ENV`, `$GITHUB_STATE`. */
export function parseKeyValueFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const heredoc = /^([^=]+?)<<(.+)$/.exec(line);
    const equals = line.indexOf("=");
    if (heredoc && (equals === -1 || equals > line.indexOf("<<"))) {
      const [, name = "", marker = ""] = heredoc;
      const value: string[] = [];
      for (i += 1; i < lines.length && lines[i] !== marker; i++) value.push(lines[i] ?? "");
      if (i >= lines.length) throw new Error(`Matching delimiter not found '${marker}'`);
      values[name] = value.join("\n");
    } else if (equals > 0) {
      values[line.slice(0, equals)] = line.slice(equals + 1);
    } else if (line.trim() !== "") {
      throw new Error(`Invalid format '${line}'`);
    }
  }
  return values;
}

/** What one step left in its runner files. */
export async function readRunnerFiles(files: RunnerFiles): Promise<{
  outputs: Record<string, string>;
  env: Record<string, string>;
  path: string[];
  summary: string;
  state: Record<string, string>;
}> {
  const read = (file: string): Promise<string> => readFile(file, "utf8");
  return {
    outputs: parseKeyValueFile(await read(files.GITHUB_OUTPUT)),
    env: parseKeyValueFile(await read(files.GITHUB_ENV)),
    path: (await read(files.GITHUB_PATH)).split(/\r?\n/).filter((line) => line.trim() !== ""),
    summary: await read(files.GITHUB_STEP_SUMMARY),
    state: parseKeyValueFile(await read(files.GITHUB_STATE)),
  };
}
