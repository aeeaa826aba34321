import { createHash } from "node:crypto";
import { globSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { data } from "@actions/expressions";
import type { FunctionDefinition } from "@actions/expressions/funcs/info";

/**
 * What the status functions answer at one `if:`: for a job, from the jobs it needs (one failed or was
 * skipped: GitHub skips the jobs that need it, unless their `if:` says otherwise); for a step, from
 * its job so far.
 */
export type Status = { failed: boolean; cancelled: boolean; needSkipped?: boolean };

const flag = (name: string, answer: () => boolean): FunctionDefinition => ({
  name,
  minArgs: 0,
  maxArgs: 0,
  call: () => new data.BooleanData(answer()),
});

/**
 * The functions the runner gives GitHub's expression engine (it does not know them: "Unrecognized
 * function"): `success()` while nothing failed and the run is not cancelled, `failure()` once
 * something failed, `cancelled()` once the run is cancelled, `always()`.
 */
export function listStatusFunctions(status: () => Status): FunctionDefinition[] {
  return [
    flag("success", () => !status().failed && !status().cancelled && status().needSkipped !== true),
    flag("failure", () => status().failed && !status().cancelled),
    flag("cancelled", () => status().cancelled),
    flag("always", () => true),
  ];
}

/**
 * `hashFiles(patterns…)` as the runner computes it: the files under the workspace the patterns match
 * (`!pattern` excludes), each hashed with SHA-256, the digests hashed again in order; "" when none.
 */
export function hashFilesFunction(workspace: string): FunctionDefinition {
  return {
    name: "hashFiles",
    minArgs: 1,
    maxArgs: 255,
    call: (...args) => {
      const patterns = args.map((arg) => arg.coerceString());
      const exclude = patterns.filter((p) => p.startsWith("!")).map((p) => p.slice(1));
      const include = patterns.filter((p) => !p.startsWith("!"));
      const root = realpathSync(workspace);
      const files = globSync(include, { cwd: root, exclude })
        .map((file) => path.resolve(root, file))
        .filter((file) => file.startsWith(`${root}${path.sep}`) && statSync(file).isFile())
        .sort();
      if (files.length === 0) return new data.StringData("");
      const all = createHash("sha256");
      for (const file of files) all.update(createHash("sha256").update(readFileSync(file)).digest());
      return new data.StringData(all.digest("hex"));
    },
  };
}
