/**
 * The folders `npm run mutate` mutates (issue 12: the core and the App's and action's decision
 * code), each with the tests that guard it.
 */
export const MUTATED_FOLDERS: Readonly<Record<string, readonly string[]>> = {
  "src/graph": ["test/graph/*.test.ts"],
  "src/plan": ["test/plan/*.test.ts"],
  "src/orchestrator": ["test/orchestrator/*.test.ts"],
  "app/trust": ["test/app/trust.test.ts", "test/app/plan-trust.test.ts"],
  "app/github": ["test/github/*.test.ts"],
  "app/engine": ["test/app/*.test.ts"],
  "action/src/publish": ["test/publish/*.test.ts"],
  "action/src/checks": ["test/checks/*.test.ts"],
};

/** The part of Stryker's JSON report (mutation-testing-report-schema) the score reads. */
export type MutantReport = {
  files: Record<
    string,
    {
      mutants: {
        mutatorName: string;
        replacement?: string;
        status: string;
        location: { start: { line: number; column: number } };
      }[];
    }
  >;
};

export type MutationScore = {
  killed: number;
  timedOut: number;
  survived: number;
  noCoverage: number;
  /** Mutants that did not compile or broke the run (left out of the score). */
  errors: number;
  /** (killed + timed out) / (killed + timed out + survived + no coverage), in percent; 100 with no mutants. */
  percent: number;
  /** `file:line:column mutator → replacement` of every survivor and uncovered mutant. */
  survivors: string[];
};

/** A folder's mutation score from its report: killed and timed out over the mutants that ran. */
export function scoreMutants(report: MutantReport): MutationScore {
  const score: MutationScore = {
    killed: 0,
    timedOut: 0,
    survived: 0,
    noCoverage: 0,
    errors: 0,
    percent: 100,
    survivors: [],
  };
  for (const [file, { mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
    for (const mutant of mutants) {
      if (mutant.status === "Killed") score.killed++;
      else if (mutant.status === "Timeout") score.timedOut++;
      else if (mutant.status === "Survived" || mutant.status === "NoCoverage") {
        if (mutant.status === "Survived") score.survived++;
        else score.noCoverage++;
        const { line, column } = mutant.location.start;
        const replacement = (mutant.replacement ?? "").replaceAll("\n", " ").slice(0, 120);
        score.survivors.push(`${file}:${line}:${column} ${mutant.mutatorName} → ${replacement}`);
      } else if (mutant.status === "CompileError" || mutant.status === "RuntimeError") score.errors++;
    }
  }
  const ran = score.killed + score.timedOut + score.survived + score.noCoverage;
  if (ran > 0) score.percent = (100 * (score.killed + score.timedOut)) / ran;
  return score;
}
