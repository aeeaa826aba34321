import { parse } from "yaml";

/**
 * Static rules every shipped workflow keeps (DESIGN.md §5, §8). Returns what is wrong, one line
 * each, so a test can show all problems at once and be run against a deliberately bad workflow.
 */
export type WorkflowProblem = { rule: WorkflowRule; job?: string; detail: string };
export const WORKFLOW_RULES = [
  "yaml",
  "trigger",
  "pinned",
  "pinned-image",
  "cache-with-model",
  "permissions",
  "expression-in-run",
  "claude-with-write",
  "credentials-with-claude",
] as const;
export type WorkflowRule = (typeof WORKFLOW_RULES)[number];

type Step = { uses?: unknown; run?: unknown; with?: Record<string, unknown>; env?: unknown };
type Job = {
  permissions?: unknown;
  steps?: Step[];
  uses?: unknown;
  env?: unknown;
  container?: unknown;
  services?: unknown;
};

/**
 * Triggers that run a workflow from the base repository with its secrets and a write token on
 * behalf of a fork (`pull_request_target`) or of another run (`workflow_run`, which a fork's
 * `pull_request` run can start): the classic "pwn request" paths. loom is dispatched only.
 */
const FORBIDDEN_TRIGGERS = ["pull_request_target", "workflow_run"];
const SHA_PIN = /^[^@\s]+@[0-9a-f]{40}$/;
const DIGEST_PIN = /@sha256:[0-9a-f]{64}$/;
/** Actions that save or restore an Actions cache: `actions/cache`, its `restore`/`save` halves. */
const CACHE_ACTION = /^actions\/cache(\/(restore|save))?@/;
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
  for (const trigger of listTriggers(doc.on)) {
    if (FORBIDDEN_TRIGGERS.includes(trigger)) {
      problems.push({
        rule: "trigger",
        detail: `on: ${trigger} runs with the base repository's secrets for others`,
      });
    }
  }
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
    const pinned = ref.startsWith("docker://") ? DIGEST_PIN.test(ref) : SHA_PIN.test(ref);
    if (!pinned) problems.push({ rule: "pinned", job, detail: `${ref} is not pinned by a full commit SHA` });
  }
  for (const image of listImages(value)) {
    if (!DIGEST_PIN.test(image)) {
      problems.push({
        rule: "pinned-image",
        job,
        detail: `image ${image} is not pinned by digest (@sha256:…)`,
      });
    }
  }
  for (const step of steps) {
    if (typeof step.run !== "string") continue;
    // Any expression: GitHub splices its value into the script before the shell parses it, so
    // even a harmless-looking context is one refactor away from an injection; env: is not.
    for (const match of step.run.matchAll(/\$\{\{([\s\S]*?)\}\}/g)) {
      problems.push({
        rule: "expression-in-run",
        job,
        detail: `run: contains \${{${match[1]}}}; pass it through env:`,
      });
    }
  }
  const claude = runsClaude(value, steps);
  if (claude) problems.push(...checkCaches(job, steps));
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

/**
 * A cache the model's job saves is restored by later runs on the same branch and, from the default
 * branch, by every branch's jobs (GitHub's cache scoping): a prompt-injected session could poison
 * what the next CI or publish job executes. So no cache at all where the model runs.
 */
function checkCaches(job: string, steps: Step[]): WorkflowProblem[] {
  const problems: WorkflowProblem[] = [];
  for (const step of steps) {
    if (typeof step.uses !== "string") continue;
    const cacheInput = step.with?.cache;
    if (CACHE_ACTION.test(step.uses)) {
      problems.push({ rule: "cache-with-model", job, detail: `${step.uses} in a job that runs the model` });
    } else if (
      cacheInput !== undefined &&
      cacheInput !== false &&
      cacheInput !== "" &&
      cacheInput !== "false"
    ) {
      problems.push({
        rule: "cache-with-model",
        job,
        detail: `${step.uses} with cache: ${JSON.stringify(cacheInput)} in a job that runs the model`,
      });
    }
  }
  return problems;
}

/** The event names of `on:` (a name, a list of names, or a mapping). */
function listTriggers(on: unknown): string[] {
  if (typeof on === "string") return [on];
  if (Array.isArray(on)) return on.filter((name): name is string => typeof name === "string");
  return isRecord(on) ? Object.keys(on) : [];
}

/** The job container's and the service containers' images. */
function listImages(job: Job): string[] {
  const imageOf = (value: unknown): unknown => (isRecord(value) ? value.image : value);
  const services = isRecord(job.services) ? Object.values(job.services) : [];
  return [imageOf(job.container), ...services.map(imageOf)].filter(
    (image): image is string => typeof image === "string",
  );
}

function holdsContentsWrite(permissions: unknown): boolean {
  if (permissions === "write-all") return true;
  return isRecord(permissions) && permissions.contents === "write";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
