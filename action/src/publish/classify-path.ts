import type { PublishRule } from "../../../src/artifacts/publish-result.ts";

/** The three kinds of protected path a session may not change unless the plan allows it. */
export type ProtectedPathRule = Extract<
  PublishRule,
  "workflow-change" | "agent-config-change" | "knowledge-rewrite"
>;

const AGENT_CONFIG_FILES = new Set(["claude.md", "claude.local.md", ".mcp.json"]);

/**
 * Which protection rule a repository path falls under, if any. Case-insensitive, so a change
 * that only differs in case on a case-insensitive checkout is caught too.
 * - `.github/**` at the repository root (workflows, actions, `.github/loom.yml`);
 * - `.claude/` at any depth, `CLAUDE.md`, `CLAUDE.local.md`, `.mcp.json` at any depth (a
 *   session whose `working_dir` is a subfolder loads those from there);
 * - `doc/loom/knowledge/*.md`: append-only knowledge files;
 * - `doc/loom/knowledge/learnings.md` and `doc/loom/knowledge/learnings/**`: the learnings log,
 *   written only by the publish job from the learnings the session recorded in its learnings file.
 */
export function classifyPath(path: string): ProtectedPathRule | null {
  const segments = path.toLowerCase().split("/");
  // The folder itself too: `.github` or `.claude` replaced by a symlink or a submodule.
  if (segments[0] === ".github") return "workflow-change";
  if (segments.includes(".claude")) return "agent-config-change";
  if (AGENT_CONFIG_FILES.has(segments.at(-1) ?? "")) return "agent-config-change";
  if (isKnowledgeFile(path) || isLearningsPath(path)) return "knowledge-rewrite";
  return null;
}

/** `doc/loom/knowledge/<name>.md`: the protected append-only knowledge base. */
export function isKnowledgeFile(path: string): boolean {
  return /^doc\/loom\/knowledge\/[^/]+\.md$/i.test(path);
}

/** The learnings log: `learnings.md` and everything under `learnings/` in the knowledge base. */
export function isLearningsPath(path: string): boolean {
  return /^doc\/loom\/knowledge\/learnings(\.md$|\/|$)/i.test(path);
}
