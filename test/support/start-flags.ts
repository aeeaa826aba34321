import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * The Node flags of package.json's start script (`exec node [flags] app/start.js`): the tests and
 * the benchmarks run the App process with them, as `npm start` and the Docker image do.
 */
export const START_FLAGS: readonly string[] = readStartFlags();

function readStartFlags(): string[] {
  const packageJson = path.resolve(import.meta.dirname, "../../package.json");
  const { scripts } = JSON.parse(readFileSync(packageJson, "utf8")) as { scripts: { start: string } };
  const words = scripts.start.split(" ");
  if (words[0] !== "exec" || words[1] !== "node" || words.at(-1) !== "app/start.js")
    throw new Error(`package.json's start script is not "exec node [flags] app/start.js": ${scripts.start}`);
  return words.slice(2, -1);
}
