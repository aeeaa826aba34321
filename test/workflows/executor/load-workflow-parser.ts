import { registerHooks } from "node:module";

import type * as Parser from "@actions/workflow-parser";

export type WorkflowParser = typeof Parser;

let loading: Promise<WorkflowParser> | null = null;

/**
 * `@actions/workflow-parser` 0.3.61, GitHub's own parser (the language service's). Its modules import
 * their schema JSON without an import attribute, which Node 24 refuses (`ERR_IMPORT_ATTRIBUTE_MISSING`,
 * see FACTS.md): a resolve hook, limited to that package's `.json` files, supplies `type: "json"`. So
 * the package is imported dynamically, once per process, after the hook is in place.
 */
export function loadWorkflowParser(): Promise<WorkflowParser> {
  if (loading === null) {
    registerHooks({
      resolve(specifier, context, nextResolve) {
        const resolved = nextResolve(specifier, context);
        if (!resolved.url.endsWith(".json") || !resolved.url.includes("/@actions/workflow-parser/"))
          return resolved;
        return { ...resolved, format: "json", importAttributes: { type: "json" } };
      },
    });
    loading = import("@actions/workflow-parser");
  }
  return loading;
}
