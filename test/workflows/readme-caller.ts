import { readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");

/** The caller block of README's quick start (between the caller markers), without its list indentation. */
export function readmeCaller(readme: string = readFileSync(join(ROOT, "README.md"), "utf8")): string | null {
  const block = /<!-- caller:start -->\n\s*```yaml\n([\s\S]*?)\n\s*```\n\s*<!-- caller:end -->/.exec(
    readme,
  )?.[1];
  if (block === undefined) return null;
  return `${block
    .split("\n")
    .map((line) => line.replace(/^ {3}/, ""))
    .join("\n")}\n`;
}
