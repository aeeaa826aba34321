/**
 * `npm run demo`: a sample plan — a diamond whose two middle stages edit the same line — run end to
 * end on loopback: the GitHub emulator (bare git repositories), the real loom app, and for every
 * dispatched run the real action with the real Claude Code against a scripted model. Prints a
 * timeline as it goes, then the check runs, what each stage cost, the graph and the files the pull
 * request changes, in colour on a terminal (NO_COLOR and FORCE_COLOR are honoured). Needs Node 24
 * and git; nothing leaves 127.0.0.1.
 */
import { styleText } from "node:util";
import { readStoredPlan } from "../app/engine/stored-plan.ts";
import { OWNER, REPO, startE2E } from "../test/e2e/harness.ts";
import { CLASH_PLAN } from "../test/e2e/sample-plans.ts";
import { createTimeline } from "../test/e2e/timeline.ts";
import { renderDemoReport } from "./render-demo-report.ts";
import type { Paint } from "./render-demo-report.ts";

const LIMIT_MS = 280_000;

/** Terminal colours only where stdout is a terminal that takes them (styleText checks the stream and NO_COLOR/FORCE_COLOR). */
const paint: Paint = (format, text) => styleText(format, text, { stream: process.stdout });

async function main(): Promise<number> {
  const print = (line: string): void => void process.stdout.write(`${line}\n`);
  const timeline = createTimeline(print);
  print("loom demo: starting the GitHub emulator, the loom app and the Actions runner on 127.0.0.1…");
  const e2e = await startE2E({
    script: CLASH_PLAN.script,
    onRunnerEvent: (event) => timeline.onRunnerEvent(event),
  });
  try {
    timeline.watch(e2e.emulator);
    const pull = await e2e.openPlan({ files: { [CLASH_PLAN.path]: CLASH_PLAN.text } });
    print(`alice opened pull request #${pull.number} adding ${CLASH_PLAN.path} (a → left, right → join)`);
    const plan = await e2e.waitFor(
      "the plan to finish",
      async () =>
        (await e2e.checkRuns(pull)).find(
          (r) => r.name === `loom: ${CLASH_PLAN.id}` && r.status === "completed",
        ),
      LIMIT_MS,
    );
    await e2e
      .waitFor(
        "the final status comment and check runs",
        async () =>
          /\*\*4\/4 merged\*\*/.test(e2e.statusComment(pull)?.body ?? "") &&
          (await e2e.checkRuns(pull)).filter((r) => r.status === "completed").length === 5,
        20_000,
      )
      .catch(() => undefined);
    timeline.stop();
    const [record] = await e2e.store.listPlansForPull(OWNER, REPO, pull.number);
    if (!record) throw new Error("the App stored no plan for the pull request");
    const git = e2e.emulator.repo().git;
    const files = await git.diffFiles(
      (await git.resolve(pull.baseRef)) ?? pull.baseRef,
      (await git.readBranch(pull.headRef)) ?? pull.headSha,
    );
    print("");
    print(
      renderDemoReport(
        {
          state: readStoredPlan(record).state,
          checkRuns: await e2e.checkRuns(pull),
          files: files.map((f) => ({
            status: f.status,
            path: f.previousFilename ? `${f.previousFilename} → ${f.filename}` : f.filename,
          })),
          headRef: pull.headRef,
        },
        paint,
      ),
    );
    print(
      `\n${pull.headRef}:settings.txt now reads:\n${(await e2e.readFile(pull.headRef, "settings.txt")) ?? "(missing)"}`,
    );
    const violations = e2e.emulator.violations.length;
    print(
      `\n${e2e.emulator.requests.length} API requests, ${violations} invalid against GitHub's OpenAPI description.`,
    );
    const runnerErrors = e2e.emulator.runnerErrors;
    for (const error of runnerErrors) print(`runner error: ${error}`);
    return plan.conclusion === "success" && violations === 0 && runnerErrors.length === 0 ? 0 : 1;
  } finally {
    timeline.stop();
    await e2e.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `demo failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
