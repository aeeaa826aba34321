import type { Diagnostic } from "../../src/plan/plan.ts";
import { formatCheckRunExternalId } from "../../src/status/check-run-external-id.ts";
import { getPlanCheckName } from "../../src/status/render-plan-check-run.ts";
import { CHECK_OUTPUT_MAX, fitText } from "../../src/status/fit-text.ts";
import { redactSecrets } from "../../src/redact/redact-secrets.ts";
import { ANNOTATIONS_PER_REQUEST, toPlanAnnotation } from "../../src/status/plan-annotations.ts";
import { countCall, toEffectError } from "./effect-context.ts";
import type { RepoContext } from "./effect-context.ts";
import { findCheckRun } from "./find-check-run.ts";

/** Annotations loom publishes at most for one plan (the summary lists them all). */
const ANNOTATIONS_MAX = 500;

export type PlanErrors = {
  headSha: string;
  planPath: string;
  errors: readonly Diagnostic[];
  warnings?: readonly Diagnostic[];
};

/** The plan id: the file stem (`doc/plans/PLAN-auth.md` → `PLAN-auth`). */
export function getPlanIdFromPath(planPath: string): string {
  const file = planPath.slice(planPath.lastIndexOf("/") + 1);
  return file.replace(/\.md$/i, "");
}

function renderSummary(input: PlanErrors): string {
  const lines = [
    `\`${input.planPath}\` is not a valid loom plan: nothing runs until it is fixed.`,
    "",
    ...input.errors.map(
      (e) => `- line ${e.line}:${e.column}${e.stage ? ` (stage \`${e.stage}\`)` : ""}: ${e.message}`,
    ),
  ];
  if (input.warnings?.length)
    lines.push("", "Warnings:", ...input.warnings.map((w) => `- line ${w.line}: ${w.message}`));
  return fitText(redactSecrets(lines.join("\n")), CHECK_OUTPUT_MAX);
}

/**
 * Publishes an invalid plan as a failing plan check run (`loom: <plan-id>`) on `headSha`, with an
 * annotation at each error's line (and warnings as warnings), 50 per request. A plan check that
 * already failed on this SHA is left as it is (the same SHA has the same plan text).
 * Returns the check run id.
 */
export async function publishPlanErrors(ctx: RepoContext, input: PlanErrors): Promise<number> {
  const label = "publishPlanErrors";
  const name = getPlanCheckName(getPlanIdFromPath(input.planPath));
  const externalId = formatCheckRunExternalId(input.planPath, null);
  const existing = await findCheckRun(ctx, label, input.headSha, name, externalId);
  if (
    existing?.status === "completed" &&
    existing.conclusion === "failure" &&
    existing.title === "Invalid plan"
  ) {
    return existing.id;
  }
  const annotations = [
    ...input.errors.map((e) => toPlanAnnotation(input.planPath, e, "failure")),
    ...(input.warnings ?? []).map((w) => toPlanAnnotation(input.planPath, w, "warning")),
  ].slice(0, ANNOTATIONS_MAX);
  const output = { title: "Invalid plan", summary: renderSummary(input) };
  try {
    countCall(ctx.calls, label);
    const { data } = await ctx.octokit.rest.checks.create({
      owner: ctx.owner,
      repo: ctx.repo,
      name,
      head_sha: input.headSha,
      external_id: externalId,
      status: "completed",
      conclusion: "failure",
      completed_at: new Date(ctx.now()).toISOString(),
      output: { ...output, annotations: annotations.slice(0, ANNOTATIONS_PER_REQUEST) },
    });
    for (let at = ANNOTATIONS_PER_REQUEST; at < annotations.length; at += ANNOTATIONS_PER_REQUEST) {
      countCall(ctx.calls, label);
      await ctx.octokit.rest.checks.update({
        owner: ctx.owner,
        repo: ctx.repo,
        check_run_id: data.id,
        output: { ...output, annotations: annotations.slice(at, at + ANNOTATIONS_PER_REQUEST) },
      });
    }
    return data.id;
  } catch (error) {
    throw toEffectError(`publishing errors of ${input.planPath}`, error);
  }
}
