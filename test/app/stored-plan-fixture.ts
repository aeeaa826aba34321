import type { RepoSettings, SplitPlan } from "../../app/engine/stored-plan.ts";
import type { PlanKey } from "../../app/store/store.ts";

/** Repository settings as a plan row carries them (the defaults of `.github/loom.yml`). */
/** The App tests' plan: PLAN-demo of pull request `pr` in acme/`repo`, installation 4242. */
export function demoKey(pr = 7, repo = "widgets"): PlanKey {
  return { installationId: 4242, owner: "acme", repo, pr, planPath: "doc/plans/PLAN-demo.md" };
}

export const DEMO_KEY: PlanKey = demoKey();

export const REPO_SETTINGS: RepoSettings = {
  workflowFile: "loom.yml",
  labelPrefix: "loom",
  minimumRole: "write",
  branchCleanup: true,
  defaultBranch: "main",
};

/** The parts the store holds after a commit of `split` onto `parts` (what the store does). */
export function applySplit(
  parts: ReadonlyMap<string, string> | undefined,
  split: SplitPlan,
): Map<string, string> {
  const next = new Map(parts ?? []);
  for (const name of split.dropParts) next.delete(name);
  for (const [name, text] of Object.entries(split.setParts)) next.set(name, text);
  return next;
}
