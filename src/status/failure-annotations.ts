import { redactSecrets } from "../redact/redact-secrets.ts";
import { fitText } from "./fit-text.ts";
import { ANNOTATIONS_PER_REQUEST } from "./plan-annotations.ts";
import type { CheckAnnotation } from "./plan-annotations.ts";

/** Lines of a failed check's output tail an annotation quotes. */
const ANNOTATION_TAIL_LINES = 12;

/**
 * The files and lines the failed checks of a stage's newest checked session named, as failure
 * annotations (the output's end quoted), so the pull request's "Files changed" shows where the
 * checks broke. Empty unless `failed`: a passing stage's check run carries no annotations.
 */
export function toFailureAnnotations(
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
