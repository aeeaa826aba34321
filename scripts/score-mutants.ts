/**
 * Some of a folder's source files (globs) and the test files that guard them, measured in one
 * Stryker run of their own. A folder whose whole test list is too slow for one run (the App's test
 * files run as one process each) is measured in parts; its score is the sum over them.
 */
export type MutationPart = { name: string; files: readonly string[]; tests: readonly string[] };

/** A folder measured in one run against `tests`, or in `parts` that cover each of its files once. */
export type MutatedFolder = { tests: readonly string[] } | { parts: readonly MutationPart[] };

/** A part of app/engine: its files by name, and the test files that guard them. */
function enginePart(name: string, files: readonly string[], tests: readonly string[]): MutationPart {
  return { name, files: files.map((file) => `app/engine/${file}.ts`), tests };
}

/** Every publish test file, and the action test that runs publish's learnings end to end. */
const EVERY_PUBLISH_TEST = ["test/publish/*.test.ts", "test/action/learnings-flow.test.ts"];

/** A part of action/src/publish: its files by name, and the test files (by name) that guard them. */
function publishPart(name: string, files: readonly string[], tests: readonly string[]): MutationPart {
  return {
    name,
    files: files.map((file) => `action/src/publish/${file}.ts`),
    tests: tests.map((file) => (file.includes("/") ? file : `test/publish/${file}.test.ts`)),
  };
}

/**
 * The folders `npm run mutate` mutates (issue 12: the core and the App's and action's decision
 * code), each with the tests that guard it.
 */
export const MUTATED_FOLDERS: Readonly<Record<string, MutatedFolder>> = {
  "src/graph": { tests: ["test/graph/*.test.ts"] },
  "src/plan": { tests: ["test/plan/*.test.ts"] },
  "src/orchestrator": { tests: ["test/orchestrator/*.test.ts"] },
  "app/trust": { tests: ["test/app/trust.test.ts", "test/app/plan-trust.test.ts"] },
  "app/github": { tests: ["test/github/*.test.ts"] },
  // Each file against its own test file (a real temp store, GitHub faked at the network), and the
  // App tests only where a file has none (`on-issue-comment.ts`): every App test file against every
  // file would take hours, since a surviving mutant re-runs each file that reached it.
  "app/engine": {
    parts: [
      enginePart(
        "inbox",
        ["apply-events", "park-events", "apply-parked-events"],
        ["test/app/apply-events.test.ts", "test/app/park-events.test.ts"],
      ),
      enginePart(
        "deliveries",
        ["process-deliveries", "read-delivery-keys", "inbox-backoff", "effect-retry-at"],
        [
          "test/app/process-deliveries.test.ts",
          "test/app/read-delivery-keys.test.ts",
          "test/app/effect-retry-at.test.ts",
        ],
      ),
      enginePart(
        "engine",
        ["create-engine", "engine-deps", "run-due-timers", "run-effects"],
        ["test/app/create-engine.test.ts", "test/app/run-due-timers.test.ts", "test/app/run-effects.test.ts"],
      ),
      enginePart(
        "reconcile",
        ["reconcile-plans", "heal-pulls", "find-lost-merges"],
        [
          "test/app/reconcile-plans.test.ts",
          "test/app/is-heartbeat-read-due.test.ts",
          "test/app/heal-pulls.test.ts",
          "test/app/find-lost-merges.test.ts",
        ],
      ),
      enginePart(
        "runs",
        ["find-run-stage", "on-workflow-run", "on-result-check-run"],
        [
          "test/app/find-run-stage.test.ts",
          "test/app/on-workflow-run.test.ts",
          "test/app/on-result-check-run.test.ts",
          "test/app/result-check-run.test.ts",
        ],
      ),
      enginePart(
        "checks",
        ["on-check-run", "on-check-suite", "reply-dead-letter"],
        [
          "test/app/on-check-run.test.ts",
          "test/app/on-check-suite.test.ts",
          "test/app/reply-dead-letter.test.ts",
        ],
      ),
      enginePart(
        "comments",
        ["on-issue-comment"],
        [
          "test/app/commands.test.ts",
          "test/app/plan-trust.test.ts",
          "test/app/no-event-dropped.test.ts",
          "test/app/trust.test.ts",
          "test/app/budget.test.ts",
          "test/security/approval-pin.test.ts",
        ],
      ),
      enginePart(
        "pull-request",
        [
          "on-pull-request",
          "load-plans",
          "read-push-events",
          "identify-plan-files",
          "close-plans",
          "move-to-own-head",
          "change-labels",
          "own-heads",
          "read-changed-paths",
        ],
        [
          "test/app/on-pull-request.test.ts",
          "test/app/own-heads.test.ts",
          "test/app/read-changed-paths.test.ts",
          "test/app/force-push.test.ts",
        ],
      ),
      enginePart(
        "readers",
        [
          "webhook-fields",
          "read-repo-file",
          "read-repo-config",
          "build-plan-spec",
          "build-repo-context",
          "is-superseded",
          "report-plan-errors",
        ],
        [
          "test/app/webhook-fields.test.ts",
          "test/app/read-repo-file.test.ts",
          "test/app/read-repo-config.test.ts",
          "test/app/build-plan-spec.test.ts",
          "test/app/build-repo-context.test.ts",
          "test/app/is-superseded.test.ts",
          "test/app/report-plan-errors.test.ts",
        ],
      ),
      enginePart("callers", ["read-caller-verdict", "refresh-callers"], ["test/app/caller-pin.test.ts"]),
      enginePart(
        "stored-plans",
        ["stored-plan", "plans-of-pull"],
        [
          "test/app/stored-plan-parts.test.ts",
          "test/app/stored-plan.test.ts",
          "test/app/plans-of-pull.test.ts",
        ],
      ),
    ],
  },
  // Every publish test file against every file would take 15–18 hours (a surviving mutant re-runs
  // each real-git test file that reached it; run-publish's alone takes a minute): each group of
  // files runs against the test files that exercise it.
  "action/src/publish": {
    parts: [
      publishPart(
        "policy",
        [
          "check-append-only",
          "classify-path",
          "create-artifact-deps",
          "parse-added-lines",
          "parse-bundle-header",
          "read-caller-workflows",
          "read-publish-policy",
          "read-retire-policy",
        ],
        ["create-artifact-deps", "publish-bundle-inputs", "publish-rules", "publish-rules-edges"],
      ),
      // The rest is reached from nearly every publish test file (the learnings log, the job log,
      // the loom result check run, run-publish's whole path): all of them, and the action's
      // learnings flow.
      publishPart("commits", ["check-new-commits", "list-new-commits"], EVERY_PUBLISH_TEST),
      publishPart("bundle", ["publish-bundle"], EVERY_PUBLISH_TEST),
      publishPart("learnings", ["commit-learnings", "retire-learnings-at"], EVERY_PUBLISH_TEST),
      publishPart("result", ["run-publish", "create-result-reporter"], EVERY_PUBLISH_TEST),
    ],
  },
  "action/src/checks": { tests: ["test/checks/*.test.ts"] },
};

/**
 * The Stryker runs that measure `folder`: its parts, or one part named after the folder that mutates
 * every file in it against all its tests.
 */
export function partsOf(folder: string, spec: MutatedFolder): readonly MutationPart[] {
  if ("parts" in spec) return spec.parts;
  return [{ name: folder.replaceAll("/", "-"), files: [`${folder}/**/*.ts`], tests: spec.tests }];
}

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

/** A score of no mutants (100 %), to count into. */
function emptyScore(): MutationScore {
  return { killed: 0, timedOut: 0, survived: 0, noCoverage: 0, errors: 0, percent: 100, survivors: [] };
}

/** A folder's mutation score from its report: killed and timed out over the mutants that ran. */
export function scoreMutants(report: MutantReport): MutationScore {
  const score = emptyScore();
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
  return withPercent(score);
}

/** `score` with its percent computed from its counts. */
function withPercent(score: MutationScore): MutationScore {
  const ran = score.killed + score.timedOut + score.survived + score.noCoverage;
  return { ...score, percent: ran > 0 ? (100 * (score.killed + score.timedOut)) / ran : 100 };
}

/**
 * A folder's score from its parts' scores: the counts added up, the percent taken over the sum (not
 * an average of the parts' percents, which would weigh a part of 20 mutants like one of 400).
 */
export function sumScores(scores: readonly MutationScore[]): MutationScore {
  const total = emptyScore();
  for (const score of scores) {
    total.killed += score.killed;
    total.timedOut += score.timedOut;
    total.survived += score.survived;
    total.noCoverage += score.noCoverage;
    total.errors += score.errors;
    total.survivors.push(...score.survivors);
  }
  return withPercent(total);
}
