import type { Value } from "./evaluate-template.ts";

/** A runner the repository reaches: GitHub-hosted ones are always there; self-hosted and ARC ones a test registers. */
export type RunnerSpec = {
  name: string;
  /** Its runner group ("GitHub Actions" for hosted runners, "Default" unless an organisation made others). */
  group: string;
  labels: readonly string[];
  environment: "github-hosted" | "self-hosted";
};

/** What a job asks for: `runs-on` as GitHub reads it (a label, a list of labels, or `{group, labels}`). */
export type RunnerRequest = { labels: string[]; group: string | null };

export class RunsOnInvalid extends Error {
  override name = "RunsOnInvalid";
}

/** GitHub-hosted Linux images (their labels): a job asking for one gets a fresh hosted runner. */
export const HOSTED_IMAGES = ["ubuntu-latest", "ubuntu-24.04", "ubuntu-22.04"] as const;

export function readRunsOn(value: Value): RunnerRequest {
  const labelsOf = (labels: Value): string[] => {
    if (typeof labels === "string" && labels !== "") return [labels];
    if (Array.isArray(labels) && labels.length > 0 && labels.every((l) => typeof l === "string" && l !== ""))
      return labels as string[];
    throw new RunsOnInvalid(
      `runs-on: ${JSON.stringify(value)} is not a label, a list of labels or {group, labels}`,
    );
  };
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const group = value["group"];
    if (group !== undefined && (typeof group !== "string" || group === ""))
      throw new RunsOnInvalid(`runs-on: group ${JSON.stringify(group)} is not a runner group name`);
    return {
      labels: value["labels"] === undefined ? [] : labelsOf(value["labels"] ?? null),
      group: group ?? null,
    };
  }
  return { labels: labelsOf(value), group: null };
}

/**
 * The runner that takes the job, as GitHub assigns one: a hosted image label gets a hosted runner;
 * otherwise a registered runner holding every label asked for (case-insensitive), in the group asked
 * for. None: the job stays queued (GitHub waits for such a runner up to 24 hours).
 */
export function pickRunner(
  request: RunnerRequest,
  registered: readonly RunnerSpec[],
  serial: number,
): RunnerSpec | null {
  const [only] = request.labels;
  if (
    request.group === null &&
    request.labels.length === 1 &&
    only &&
    (HOSTED_IMAGES as readonly string[]).includes(only)
  )
    return {
      name: `GitHub Actions ${serial}`,
      group: "GitHub Actions",
      labels: [only],
      environment: "github-hosted",
    };
  const wanted = request.labels.map((label) => label.toLowerCase());
  return (
    registered.find((runner) => {
      if (request.group !== null && runner.group.toLowerCase() !== request.group.toLowerCase()) return false;
      const has = new Set(runner.labels.map((label) => label.toLowerCase()));
      return wanted.every((label) => has.has(label));
    }) ?? null
  );
}
