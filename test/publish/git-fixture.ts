import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  BUNDLE_FILE,
  BUNDLE_MANIFEST_FILE,
  PUBLISH_RESULT_FILE,
  type BundleManifest,
} from "../../src/artifacts/publish-result.ts";
import assert from "node:assert/strict";
import { runPublish, type PublishDeps, type PublishInputs } from "../../action/src/publish/run-publish.ts";
import { PublishResult } from "../../src/artifacts/publish-result.ts";
import { RecordedLearning } from "../../src/knowledge/learning.ts";

export const PLAN_ID = "PLAN-demo";
export const STAGE_ID = "build-api";
export const BRANCH = `loom/pr-7/${PLAN_ID}/${STAGE_ID}`;
export const PLAN_PATH = `doc/plans/${PLAN_ID}.md`;
/** The publish job's inputs for the fixture's plan and stage. */
export const PUBLISH_INPUTS: PublishInputs = {
  plan_path: PLAN_PATH,
  plan_id: PLAN_ID,
  stage_id: STAGE_ID,
  branch: BRANCH,
};
/** An append-only knowledge file of the reference layout. */
export const KNOWLEDGE_PATH = "doc/loom/knowledge/mistakes.md";
/** A GitHub token shape, built at run time (never a literal in the repository). */
export const fakeToken = (): string => `ghp_${"P0o9I8u7Y6".repeat(4).slice(0, 36)}`;

/** A learning the gate accepts, recorded by this plan's stage (override any field). */
export function recordedLearning(change: Partial<RecordedLearning> = {}): RecordedLearning {
  return RecordedLearning.parse({
    category: "pattern",
    summary: "Routes register themselves in src/api/index.ts",
    detail:
      "Each route module calls register() at import; a new route file must be imported from src/api/index.ts or it never answers.",
    tags: ["api", "routing"],
    scope: "src/api/**",
    criteria_met: ["specific", "verified"],
    plan_id: PLAN_ID,
    stage_id: STAGE_ID,
    attempt: 1,
    recorded_at: "2026-11-22T03:00:00.000Z",
    ...change,
  });
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
    },
  }).trim();
}

export function planText(loomExtra = "", stageExtra = ""): string {
  return [
    "# Plan: demo",
    "",
    "<!-- loom METADATA -->",
    "```yaml",
    "loom:",
    "  version: 1",
    ...(loomExtra === "" ? [] : [`  ${loomExtra}`]),
    "  stages:",
    `    - id: ${STAGE_ID}`,
    "      name: Build the API",
    ...(stageExtra === "" ? [] : [`      ${stageExtra}`]),
    "```",
    "<!-- END loom METADATA -->",
    "",
  ].join("\n");
}

/**
 * A bare origin with `main` and the stage branch, the publish job's clone (`workspace`) and the
 * run job's clone (`session`) on the stage branch. Commit in `session`, then `bundle()`.
 */
export class PublishFixture {
  readonly root = mkdtempSync(join(tmpdir(), "loom-publish-"));
  readonly origin = join(this.root, "origin.git");
  readonly workspace = join(this.root, "workspace");
  readonly session = join(this.root, "session");
  readonly artifactDir = join(this.root, "artifact");
  /** The run job's `loom-result` artifact, when `result()` wrote one. */
  readonly resultDir = join(this.root, "result-artifact");
  readonly tempDir = join(this.root, "tmp");
  readonly uploads: { name: string; files: string[]; content: unknown }[] = [];
  readonly logs: string[] = [];
  private baseSha = "";
  private readonly hasStageBranch: boolean;

  /**
   * `stageBranch: false`: a first attempt, whose stage branch does not exist yet; the run job's
   * checkout is the merge point (`main`), and the publish job creates the stage branch.
   */
  constructor(files: Record<string, string> = {}, options: { stageBranch?: boolean } = {}) {
    this.hasStageBranch = options.stageBranch ?? true;
    git(this.root, "init", "-q", "--bare", "-b", "main", this.origin);
    const seed = join(this.root, "seed");
    git(this.root, "clone", "-q", this.origin, seed);
    this.write(seed, { [PLAN_PATH]: planText(), "README.md": "demo\n", ...files });
    git(seed, "add", "-A");
    git(seed, "commit", "-q", "-m", "seed");
    git(
      seed,
      "push",
      "-q",
      "origin",
      "HEAD:refs/heads/main",
      ...(this.hasStageBranch ? [`HEAD:refs/heads/${BRANCH}`] : []),
      "HEAD:refs/heads/other",
    );
    git(this.root, "clone", "-q", "--branch", this.checkoutRef, this.origin, this.workspace);
    this.startSession();
  }

  /** What the jobs check out: the stage branch, or the merge point before the branch exists. */
  private get checkoutRef(): string {
    return this.hasStageBranch ? BRANCH : "main";
  }

  /** (Re)clone the session from the stage branch (or the merge point) as it is on origin now. */
  startSession(): void {
    rmSync(this.session, { recursive: true, force: true });
    git(this.root, "clone", "-q", "--branch", this.checkoutRef, this.origin, this.session);
    // The run job's bundle names the stage branch whatever it checked out (createBundle).
    if (!this.hasStageBranch) git(this.session, "checkout", "-q", "-b", BRANCH);
    this.baseSha = git(this.session, "rev-parse", "HEAD");
  }

  /** Move the session to origin's `branch` as it is now and start from there (the run job's checkout of it). */
  startFrom(branch: string): string {
    git(this.session, "fetch", "-q", "origin", branch);
    git(this.session, "reset", "-q", "--hard", "FETCH_HEAD");
    this.baseSha = git(this.session, "rev-parse", "HEAD");
    return this.baseSha;
  }

  /** A commit pushed to origin's `branch` by someone else (a merge of another stage, a push). */
  pushElsewhere(branch: string, files: Record<string, string>): string {
    const side = join(this.root, `side-${Date.now()}`);
    git(this.root, "clone", "-q", "--branch", branch, this.origin, side);
    this.write(side, files);
    git(side, "add", "-A");
    git(side, "commit", "-q", "-m", `moved ${branch}`);
    git(side, "push", "-q", "origin", `HEAD:refs/heads/${branch}`);
    return git(side, "rev-parse", "HEAD");
  }

  /** Whether origin has the stage branch. */
  hasOriginBranch(branch: string): boolean {
    return git(this.origin, "for-each-ref", `refs/heads/${branch}`) !== "";
  }

  write(repo: string, files: Record<string, string>): void {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(repo, path)), { recursive: true });
      writeFileSync(join(repo, path), content);
    }
  }

  /** Commit files in the session (empty content deletes). */
  commit(message: string, files: Record<string, string | null>): string {
    for (const [path, content] of Object.entries(files)) {
      if (content === null) git(this.session, "rm", "-q", "-f", path);
      else this.write(this.session, { [path]: content });
    }
    git(this.session, "add", "-A");
    git(this.session, "commit", "-q", "-m", message);
    return git(this.session, "rev-parse", "HEAD");
  }

  /** Write the `loom-bundle` artifact the run job would upload: `<base>..<refs>`. */
  bundle(refs: string[] = [`refs/heads/${BRANCH}`], manifest: Partial<BundleManifest> = {}): void {
    rmSync(this.artifactDir, { recursive: true, force: true });
    mkdirSync(this.artifactDir, { recursive: true });
    const head = git(this.session, "rev-parse", "HEAD");
    const nothing = head === this.baseSha && manifest.bundle === undefined;
    if (!nothing) {
      git(
        this.session,
        "bundle",
        "create",
        "-q",
        join(this.artifactDir, BUNDLE_FILE),
        ...refs,
        `^${this.baseSha}`,
      );
    }
    const full: BundleManifest = {
      version: 1,
      plan_id: PLAN_ID,
      stage_id: STAGE_ID,
      attempt: 1,
      branch: BRANCH,
      base_sha: this.baseSha,
      head_sha: head,
      bundle: nothing ? null : BUNDLE_FILE,
      ...manifest,
    };
    writeFileSync(join(this.artifactDir, BUNDLE_MANIFEST_FILE), JSON.stringify(full));
  }

  /** Write the `loom-result` artifact the run job would upload (a valid result with these learnings). */
  result(accepted: unknown[], change: Record<string, unknown> = {}): void {
    mkdirSync(this.resultDir, { recursive: true });
    const result = {
      version: 1,
      plan_id: PLAN_ID,
      stage_id: STAGE_ID,
      attempt: 1,
      kind: "stage",
      outcome: "completed",
      reason: "done",
      checks: [],
      commits: [],
      head_sha: git(this.session, "rev-parse", "HEAD"),
      turns: 1,
      tokens: { input: 0, output: 0, cache_read: 0, cache_creation: 0 },
      cost_usd: 0,
      duration_ms: 1,
      context_percent: 1,
      deviations: [],
      permission_denials: [],
      learnings: { accepted, rejected: [] },
      ...change,
    };
    writeFileSync(join(this.resultDir, "loom-result.json"), JSON.stringify(result));
  }

  readonly deps: PublishDeps = {
    downloadArtifact: (name, directory) => {
      const from = { "loom-bundle": this.artifactDir, "loom-result": this.resultDir }[name];
      if (from === undefined || !existsSync(from)) return Promise.reject(new Error(`no artifact ${name}`));
      cpSync(from, directory, { recursive: true });
      return Promise.resolve();
    },
    uploadArtifact: (name, files) => {
      const file = files.find((path) => path.endsWith(PUBLISH_RESULT_FILE));
      this.uploads.push({
        name,
        files,
        content: file === undefined ? null : JSON.parse(readFileSync(file, "utf8")),
      });
      return Promise.resolve();
    },
    log: (message) => {
      this.logs.push(message);
    },
  };

  originRef(branch: string): string {
    return git(this.origin, "rev-parse", `refs/heads/${branch}`);
  }

  originRefs(): string {
    return git(this.origin, "for-each-ref", "--format=%(refname) %(objectname)");
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** Runs the publish job on the fixture with `inputs`; the result it uploaded is the one it answered. */
export async function publishIn(
  f: PublishFixture,
  inputs: PublishInputs,
  knownSecrets: readonly string[] = [],
): Promise<PublishResult> {
  const result = await runPublish({
    workspace: f.workspace,
    tempDir: f.tempDir,
    inputs,
    knownSecrets: [...knownSecrets],
    deps: f.deps,
  });
  assert.deepEqual(PublishResult.parse(f.uploads.at(-1)?.content), result, "the result is uploaded");
  return result;
}
