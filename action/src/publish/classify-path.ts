import type { PublishRule } from "../../../src/artifacts/publish-result.ts";
import { DEFAULT_CALLER_WORKFLOW } from "./read-caller-workflows.ts";

/** The kinds of protected path: some a plan may open (`allow_*`), some nothing opens. */
export type ProtectedPathRule = Extract<
  PublishRule,
  | "plan-change"
  | "loom-config-change"
  | "github-change"
  | "workflow-change"
  | "agent-config-change"
  | "knowledge-rewrite"
>;

/** A plan file name, as the App discovers plans (`src/plan/discover-plan-paths.ts`), in any case. */
const PLAN_FILE_NAME = /^(?:IN_PROGRESS-|DONE-)?PLAN-[^/]*\.md$/i;
const AGENT_CONFIG_FILES = new Set(["claude.md", "claude.local.md", ".mcp.json"]);
/** Instructions another coding agent (GitHub Copilot) loads from `.github/`. */
const GITHUB_AGENT_CONFIG = new Set([
  "copilot-instructions.md",
  "instructions",
  "prompts",
  "agents",
  "chatmodes",
]);
const LOOM_CONFIG_FILES = new Set(["loom.yml", "loom.yaml"]);

/**
 * Which protection rule a repository path falls under, if any. Case-insensitive, so a change
 * that only differs in case on a case-insensitive checkout is caught too.
 * - plan files (`PLAN-*.md`, `IN_PROGRESS-PLAN-*.md`, `DONE-PLAN-*.md`) in any folder: a plan is
 *   what loom runs next and what publish allows, so only people change plans;
 * - `.github/loom.yml`, and `.github/` or `.github/workflows` themselves (replaced by a symlink or
 *   a submodule): loom's configuration, and so are its callers: `.github/workflows/loom.yml` and
 *   the `callerWorkflows` named by `.github/loom.yml` (found by content in `checkNewCommits` too);
 * - `.github/workflows/**`: workflows, opened by `allow_workflow_changes`;
 * - `.claude/` at any depth, `CLAUDE.md`, `CLAUDE.local.md`, `.mcp.json` at any depth (a session
 *   whose `working_dir` is a subfolder loads those from there; `.claude/settings.json` holds hooks
 *   that run commands in later sessions), and Copilot's instructions under `.github/`: agent
 *   configuration, opened by `allow_agent_config_changes`;
 * - anything else under `.github/` (composite actions, CODEOWNERS, dependabot): nothing opens it;
 * - `doc/loom/knowledge/*.md`: append-only knowledge files; `learnings.md` and `learnings/**`:
 *   the learnings log, written only by the publish job.
 */
export function classifyPath(
  path: string,
  callerWorkflows: readonly string[] = [],
): ProtectedPathRule | null {
  const segments = path.toLowerCase().split("/");
  const name = segments.at(-1) ?? "";
  if (PLAN_FILE_NAME.test(name)) return "plan-change";
  if (segments[0] === ".github") return classifyGithubPath(segments, callerWorkflows);
  if (segments.includes(".claude")) return "agent-config-change";
  if (AGENT_CONFIG_FILES.has(name)) return "agent-config-change";
  if (isKnowledgeFile(path) || isLearningsPath(path)) return "knowledge-rewrite";
  return null;
}

function classifyGithubPath(segments: string[], callerWorkflows: readonly string[]): ProtectedPathRule {
  const [, second = "", third] = segments;
  if (segments.length === 1) return "loom-config-change";
  if (segments.length === 2 && LOOM_CONFIG_FILES.has(second)) return "loom-config-change";
  if (second === "workflows") {
    if (third === undefined) return "loom-config-change";
    const callers = [DEFAULT_CALLER_WORKFLOW, ...callerWorkflows].map((file) => file.toLowerCase());
    return segments.length === 3 && callers.includes(third) ? "loom-config-change" : "workflow-change";
  }
  if (GITHUB_AGENT_CONFIG.has(second)) return "agent-config-change";
  return "github-change";
}

/** A workflow file's text calls loom's stage workflow (`uses: …/.github/workflows/loom-stage*.yml…`). */
export function callsLoomStage(text: string): boolean {
  return /uses:\s*["']?[^\s"'#]*\.github\/workflows\/loom-stage[\w-]*\.ya?ml/i.test(text);
}

/** `doc/loom/knowledge/<name>.md`: the protected append-only knowledge base. */
export function isKnowledgeFile(path: string): boolean {
  return /^doc\/loom\/knowledge\/[^/]+\.md$/i.test(path);
}

/** The learnings log: `learnings.md` and everything under `learnings/` in the knowledge base. */
export function isLearningsPath(path: string): boolean {
  return /^doc\/loom\/knowledge\/learnings(\.md$|\/|$)/i.test(path);
}
