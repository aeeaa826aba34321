import type { Diagnostic } from "../plan/plan.ts";
import { redactSecrets } from "../redact/redact-secrets.ts";
import { fitText } from "./fit-text.ts";

/** A check-run annotation as `POST/PATCH …/check-runs` takes it. */
export type CheckAnnotation = {
  path: string;
  start_line: number;
  end_line: number;
  start_column?: number;
  end_column?: number;
  annotation_level: "notice" | "warning" | "failure";
  message: string;
  title: string;
};

/** GitHub takes at most 50 annotations per request; later updates append to them. */
export const ANNOTATIONS_PER_REQUEST = 50;

/** A plan diagnostic as an annotation at its line of the plan file (the stage named in the title). */
export function toPlanAnnotation(
  planPath: string,
  d: Pick<Diagnostic, "message" | "line" | "column" | "stage">,
  level: "failure" | "warning",
): CheckAnnotation {
  const line = Math.max(1, d.line);
  return {
    path: planPath,
    start_line: line,
    end_line: line,
    ...(d.column > 0 ? { start_column: d.column, end_column: d.column } : {}),
    annotation_level: level,
    message: fitText(redactSecrets(d.message), 64_000),
    title: d.stage ? `stage ${d.stage}` : "plan",
  };
}
