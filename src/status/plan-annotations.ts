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

/** Lines of a failed check's output tail an annotation quotes. */
const ANNOTATION_TAIL_LINES = 12;

/**
 * The files and lines the failed checks of a stage's newest checked session named, as failure
 * annotations (the output's end quoted), so the pull request's "Files changed" shows where the
 * checks broke. Empty unless `failed`: a passing stage's check run carries no annotations.
 */
export function toCheckAnnotations(
  checks: readonly {
    kind: string;
    name: string;
    passed: boolean;
    exitCode?: number;
    outputTail?: string;
    locations?: { path: string; line: number; column?: number }[];
  }[],
  failed: boolean,
): CheckAnnotation[] {
  if (!failed) return [];
  return checks
    .filter((check) => !check.passed)
    .flatMap((check) => {
      const tail = (check.outputTail ?? "").trimEnd().split("\n").slice(-ANNOTATION_TAIL_LINES).join("\n");
      const exit = check.exitCode === undefined ? "failed" : `failed with exit code ${check.exitCode}`;
      const message = fitText(redactSecrets(tail === "" ? exit : `${exit}:\n${tail}`), 64_000);
      const title = fitText(redactSecrets(`${check.kind} ${check.name}`), 255);
      return (check.locations ?? []).map((l): CheckAnnotation => ({
        path: l.path,
        start_line: l.line,
        end_line: l.line,
        ...(l.column === undefined ? {} : { start_column: l.column, end_column: l.column }),
        annotation_level: "failure",
        message,
        title,
      }));
    })
    .slice(0, ANNOTATIONS_PER_REQUEST);
}
