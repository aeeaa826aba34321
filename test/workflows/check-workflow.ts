import { parse } from "yaml";

/**
 * Static rules every shipped workflow keeps (DESIGN.md §5, §8). Returns what is wrong, one line
 * each, so a test can show all problems at once and be run against a deliberately bad workflow.
 */
export type WorkflowProblem = { rule: WorkflowRule; job?: string; detail: string };
export const WORKFLOW_RULES = [
  "yaml",
  "pinned",
  "permissions",
  "expression-in-run",
  "claude-with-write",
  "credentials-with-claude",
] as const;
export type WorkflowRule = (typeof WORKFLOW_RULES)[number];

type Step = { uses?: unknown; run?: unknown; with?: Record<string, unknown>; env?: unknown };
type Job = { permissions?: unknown; steps?: Step[]; uses?: unknown; env?: unknown };

/** Contexts that are safe inside `run:` (no attacker-controlled text). Everything else is not. */
const SAFE_EXPRESSION =
  /^\s*(runner\.\w+|github\.(workspace|run_id|run_number|run_attempt|sha|repository|action_path))\s*$/;
const SHA_PIN = /^[^@\s]+@[0-9a-f]{40}$/;
const LOOM_ACTION = /(^|\/)loom\/action@|^\.\/action\/?$/;

export function checkWorkflow(text: string): WorkflowProblem[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    return [{ rule: "yaml", detail: String(error) }];
  }
  if (!isRecord(doc) || !isRecord(doc.jobs)) return [{ rule: "yaml", detail: "no jobs mapping" }];
  const problems: WorkflowProblem[] = [];
  for (const [name, value] of Object.entries(doc.jobs)) {
    if (!isRecord(value)) continue;
    problems.push(...checkJob(name, value));
  }
  return problems;
}

function checkJob(job: string, value: Job): WorkflowProblem[] {
  const problems: WorkflowProblem[] = [];
  if (value.permissions === undefined) {
    problems.push({ rule: "permissions", job, detail: "the job declares no permissions:" });
  }
  const steps = Array.isArray(value.steps) ? value.steps : [];
  const uses = [value.uses, ...steps.map((step) => step.uses)].filter(
    (u): u is string => typeof u === "string",
  );
  for (const ref of uses) {
    if (ref.startsWith("./")) continue;
    const pinned = ref.startsWith("docker://") ? /@sha256:[0-9a-f]{64}$/.test(ref) : SHA_PIN.test(ref);
    if (!pinned) problems.push({ rule: "pinned", job, detail: `${ref} is not pinned by a full commit SHA` });
  }
  for (const step of steps) {
    if (typeof step.run !== "string") continue;
    for (const match of step.run.matchAll(/\$\{\{([\s\S]*?)\}\}/g)) {
      if (!SAFE_EXPRESSION.test(match[1] ?? "")) {
        problems.push({
          rule: "expression-in-run",
          job,
          detail: `run: contains \${{${match[1]}}}; pass it through env:`,
        });
      }
    }
  }
  const claude = runsClaude(value, steps);
  if (claude && holdsContentsWrite(value.permissions)) {
    problems.push({
      rule: "claude-with-write",
      job,
      detail: "the job runs Claude and holds contents: write",
    });
  }
  if (claude) {
    for (const step of steps) {
      const checkout = typeof step.uses === "string" && step.uses.startsWith("actions/checkout@");
      if (checkout && step.with?.["persist-credentials"] !== false) {
        problems.push({
          rule: "credentials-with-claude",
          job,
          detail: "checkout without persist-credentials: false",
        });
      }
    }
  }
  return problems;
}

/**
 * The loom action in run mode, a `claude` command, or the model key anywhere in the job. A job
 * that calls a reusable workflow runs nothing itself: the called workflow is checked on its own.
 */
function runsClaude(job: Job, steps: Step[]): boolean {
  if (typeof job.uses === "string") return false;
  if (JSON.stringify(job).includes("ANTHROPIC_API_KEY")) return true;
  return steps.some((step) => {
    if (typeof step.run === "string" && /(^|[\s;&|/])claude(\s|$)/m.test(step.run)) return true;
    const isLoom = typeof step.uses === "string" && LOOM_ACTION.test(step.uses);
    return isLoom && step.with?.mode !== "publish";
  });
}

function holdsContentsWrite(permissions: unknown): boolean {
  if (permissions === "write-all") return true;
  return isRecord(permissions) && permissions.contents === "write";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
