import { readFileSync } from "node:fs";

/** One Dockerfile instruction: `COPY --from=deps a b` → `{ keyword: "COPY", args: "--from=deps a b", stage }`. */
export type Instruction = { keyword: string; args: string; stage: number };

/**
 * The instructions of a Dockerfile, continuation lines joined, comments dropped, `${ARG}` in FROM
 * replaced by the ARG's default; `stage` counts FROM lines (0 before the first).
 */
export function readDockerfile(path: string): { instructions: Instruction[]; comments: string[] } {
  const text = readFileSync(path, "utf8");
  const comments = text.split("\n").filter((line) => line.trimStart().startsWith("#"));
  const logical = text
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("#"))
    .join("\n")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const args = new Map<string, string>();
  const instructions: Instruction[] = [];
  let stage = 0;
  for (const line of logical) {
    const [keyword = "", ...rest] = line.split(/\s+/);
    let body = rest.join(" ");
    const upper = keyword.toUpperCase();
    if (upper === "ARG") {
      const [name = "", value = ""] = body.split("=");
      args.set(name, value);
    }
    if (upper === "FROM") {
      stage += 1;
      body = body.replace(/\$\{(\w+)\}/g, (_, name: string) => args.get(name) ?? "");
    }
    instructions.push({ keyword: upper, args: body, stage });
  }
  return { instructions, comments };
}
