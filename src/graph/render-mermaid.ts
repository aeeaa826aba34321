import type { StageStatus } from "../stage/stage-status.ts";
import { STAGE_STATUSES } from "../stage/stage-status.ts";
import { getDependencies } from "./build-graph.ts";
import type { Graph } from "./build-graph.ts";

export type MermaidOptions = {
  statusOf?: (id: string) => StageStatus | undefined;
  mergedOf?: (id: string) => boolean;
  /** The text shown in a node; defaults to the stage id. */
  labelOf?: (id: string) => string;
};

/** Fill and stroke per status, readable on GitHub's light and dark themes. */
const STYLES: Record<StageStatus, string> = {
  "waiting-for-deps": "fill:#eaeef2,stroke:#8c959f,color:#24292f",
  queued: "fill:#ddf4ff,stroke:#54aeff,color:#0a3069",
  executing: "fill:#fff8c5,stroke:#d4a72c,color:#4d2d00",
  blocked: "fill:#ffebe9,stroke:#cf222e,color:#82071e",
  completed: "fill:#dafbe1,stroke:#2da44e,color:#116329",
  "needs-handoff": "fill:#fbefff,stroke:#a475f9,color:#512a97",
  skipped: "fill:#f6f8fa,stroke:#d0d7de,color:#57606a,stroke-dasharray:4 3",
  "merge-conflict": "fill:#fff1e5,stroke:#fb8f44,color:#762c00",
  "completed-with-failures": "fill:#ffebe9,stroke:#fa4549,color:#82071e",
  "merge-blocked": "fill:#ffebe9,stroke:#cf222e,color:#82071e",
  "needs-human-review": "fill:#fff1e5,stroke:#bc4c00,color:#762c00",
};
const MERGED_STYLE = "fill:#2da44e,stroke:#116329,color:#ffffff";

/** A mermaid class name for a status (class names avoid `-`). */
export function getStatusClass(status: StageStatus): string {
  return status.replaceAll("-", "_");
}

/**
 * Escapes text for a quoted mermaid label: everything but letters, digits, space and a few safe
 * punctuation marks becomes a `#code;` entity, so quotes, brackets and markup cannot break out.
 */
export function escapeMermaidLabel(text: string): string {
  return [...text]
    .map((char) => (/^[A-Za-z0-9 _.,:/()-]$/.test(char) ? char : `#${char.codePointAt(0)};`))
    .join("");
}

/**
 * The DAG as a mermaid `graph TD`, dependencies pointing at their dependents. Node ids are
 * generated (`s0`, `s1`, …) so stage ids with `-` or `_` cannot clash with mermaid syntax; labels
 * show the stage id and its status in text, and nodes are coloured by status with `classDef`.
 * A completed stage that is merged gets the `merged` class.
 */
export function renderMermaid(graph: Graph, options: MermaidOptions = {}): string {
  const nodeId = new Map(graph.ids.map((id, index) => [id, `s${index}`]));
  const lines = ["graph TD"];
  const classes = new Map<string, string[]>();
  for (const id of graph.ids) {
    const status = options.statusOf?.(id);
    const merged = options.mergedOf?.(id) ?? false;
    const label = options.labelOf?.(id) ?? id;
    const suffix = status ? ` (${merged ? "merged" : status})` : "";
    lines.push(`  ${nodeId.get(id)}["${escapeMermaidLabel(label + suffix)}"]`);
    const className = merged ? "merged" : status ? getStatusClass(status) : null;
    if (className) classes.set(className, [...(classes.get(className) ?? []), nodeId.get(id)!]);
  }
  for (const id of graph.ids) {
    for (const dep of getDependencies(graph, id)) lines.push(`  ${nodeId.get(dep)} --> ${nodeId.get(id)}`);
  }
  if (classes.size > 0) {
    for (const status of STAGE_STATUSES) lines.push(`  classDef ${getStatusClass(status)} ${STYLES[status]}`);
    lines.push(`  classDef merged ${MERGED_STYLE}`);
    for (const [className, nodes] of classes) lines.push(`  class ${nodes.join(",")} ${className}`);
  }
  return lines.join("\n") + "\n";
}
