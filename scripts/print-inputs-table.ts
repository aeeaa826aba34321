/**
 * Prints the configuration reference of docs/configuration.md (with its markers) from the stage workflows and
 * action/action.yml: paste it over that copy when an input changes.
 */
import { readFileSync } from "node:fs";
import { INPUTS_END, INPUTS_START, renderInputsTables } from "./inputs-table.ts";

const read = (path: string): string => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");
const tables = renderInputsTables({
  stage: read(".github/workflows/loom-stage.yml"),
  oidc: read(".github/workflows/loom-stage-oidc.yml"),
  action: read("action/action.yml"),
});
process.stdout.write(`${INPUTS_START}${tables}${INPUTS_END}\n`);
