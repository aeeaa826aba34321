import type { Core } from "./create-core.ts";
import type { CommentRecord, PullRecord, RepoRecord } from "./emulator-state.ts";
import { takeId } from "./emulator-state.ts";
import type { Role } from "./emulator-state.ts";
import { checkLabel, createLabelRecord, findLabel } from "./repo-labels.ts";
import { hasFailedRun } from "./check-suites.ts";
import { exposePullHead } from "./fork-repo.ts";

type Files = Record<string, string | null>;

export type OpenPullRequest = {
  head: string;
  base?: string;
  title?: string;
  body?: string;
  /** Committed on the head branch (created from `base` when missing) before the pull request opens. */
  files?: Files;
  message?: string;
  /** The head repository's full name when the pull request comes from a fork (created on first use). */
  headRepo?: string;
};

/** A person acting on GitHub: each action changes the emulator's state and fires the webhook GitHub would. */
export type Person = ReturnType<typeof createPerson>;

export function createPerson(core: Core, repo: RepoRecord, login: string) {
  const author = { name: login, email: `${login}@users.noreply.example.invalid` };

  const ROLES: Role[] = ["none", "read", "triage", "write", "maintain", "admin"];
  /** Throws, as GitHub's UI offers nothing, when the person's role is below `least`. */
  function needRole(least: Role, what: string): void {
    const role = core.state.permissions.get(repo.fullName)?.get(login.toLowerCase()) ?? core.defaultRole;
    if (ROLES.indexOf(role) < ROLES.indexOf(least))
      throw new Error(`${login} (${role}) cannot ${what} in ${repo.fullName}: GitHub needs ${least}`);
  }

  function pull(number: number): PullRecord {
    const found = core.findPull(repo, number);
    if (!found) throw new Error(`no pull request #${number} in ${repo.fullName}`);
    return found;
  }

  const person = {
    login,
    /** Commits `files` on `branch` (created from `from`, default the default branch, when missing). Fires `synchronize`. */
    async push(
      branch: string,
      files: Files,
      options: { message?: string; from?: string } = {},
    ): Promise<string> {
      const current = await repo.git.readBranch(branch);
      const parent = current ?? (await repo.git.resolve(options.from ?? repo.defaultBranch));
      const sha = await repo.git.commitFiles({
        parent,
        files,
        message: options.message ?? `Update ${Object.keys(files).join(", ")}`,
        author,
      });
      if (!(await core.moveBranch(repo, branch, sha, login, current ?? "")))
        throw new Error(`${branch} moved while pushing`);
      return sha;
    },
    /**
     * Opens a pull request into this repository from `head`: a branch of this repository, or with
     * `headRepo` another name, a branch of that fork (made from this repository's branches when it
     * does not exist yet), where `files` are pushed.
     */
    async openPullRequest(input: OpenPullRequest): Promise<PullRecord> {
      const base = input.base ?? repo.defaultBranch;
      const fork =
        input.headRepo !== undefined && input.headRepo.toLowerCase() !== repo.fullName.toLowerCase()
          ? await core.ensureFork(repo, input.headRepo)
          : null;
      const headRepo = fork ?? repo;
      if (input.files)
        await (fork ? createPerson(core, fork, login) : person).push(input.head, input.files, {
          from: base,
          ...(input.message ? { message: input.message } : {}),
        });
      const headSha = await headRepo.git.readBranch(input.head);
      if (!headSha) throw new Error(`the head branch ${input.head} does not exist in ${headRepo.fullName}`);
      const at = core.now();
      const number = core.state.pulls.filter((p) => p.repo === repo.fullName).length + 1;
      if (fork) await exposePullHead(repo, fork, number, headSha);
      const record: PullRecord = {
        repo: repo.fullName,
        id: takeId(core.state),
        number,
        title: input.title ?? `Pull request from ${input.head}`,
        body: input.body ?? "",
        user: login,
        headRef: input.head,
        headRepo: headRepo.fullName,
        baseRef: base,
        headSha,
        state: "open",
        merged: false,
        labels: [],
        createdAt: at,
        updatedAt: at,
      };
      core.state.pulls.push(record);
      await core.emitPull(repo, record, "opened", login);
      return record;
    },
    async comment(number: number, body: string): Promise<CommentRecord> {
      return core.addComment(repo, pull(number), body, login);
    },
    /**
     * Picks a label in the pull request's label menu. GitHub's menu offers only labels the
     * repository has, to people with triage or more: a missing label or a lesser role throws.
     */
    async addLabel(number: number, name: string): Promise<void> {
      needRole("triage", `label pull requests`);
      const label = findLabel(core.state, repo, name);
      if (!label) throw new Error(`${repo.fullName} has no label ${name}: GitHub's label menu cannot add it`);
      await core.changeLabels(repo, pull(number), [label.name], [], login);
    },
    async removeLabel(number: number, name: string): Promise<void> {
      needRole("triage", `label pull requests`);
      await core.changeLabels(repo, pull(number), [], [name], login);
    },
    /** Creates a repository label on the Labels page (GitHub: write access or more). */
    createLabel(name: string, options: { color?: string; description?: string } = {}): void {
      needRole("write", "create labels");
      const input = { name, color: options.color, description: options.description };
      const refusal = checkLabel(core.state, repo, input);
      if (refusal) throw new Error(`GitHub refuses the label ${name}: ${refusal.code} ${refusal.field}`);
      createLabelRecord(core.state, repo, input);
    },
    /** Clicks a check run's button: `check_run.requested_action` with its identifier. */
    async clickButton(checkRunId: number, identifier: string): Promise<void> {
      const run = core.state.checkRuns.find((r) => r.id === checkRunId);
      if (!run) throw new Error(`no check run ${checkRunId}`);
      if (!run.actions.some((a) => a.identifier === identifier))
        throw new Error(`check run ${checkRunId} has no button ${identifier}`);
      await core.emitCheckRun(repo, run, "requested_action", login, { requested_action: { identifier } });
    },
    /** "Re-run" on a check run: `check_run.rerequested` (GitHub offers it to people who can write). */
    async rerequest(checkRunId: number): Promise<void> {
      needRole("write", "re-run checks");
      const run = core.state.checkRuns.find((r) => r.id === checkRunId);
      if (!run) throw new Error(`no check run ${checkRunId}`);
      await core.emitCheckRun(repo, run, "rerequested", login);
    },
    /**
     * "Re-run all checks" (or, with `failedOnly`, "Re-run failed checks") on a pull request: one
     * `check_suite.rerequested` per app suite on its head (failed only: suites with a failed check
     * run), each to the app that owns it. GitHub sends both menu items as the same event.
     */
    async rerunChecks(number: number, options: { failedOnly?: boolean } = {}): Promise<number> {
      needRole("write", "re-run checks");
      const head = await core.headOf(repo, pull(number));
      const suites = core.state.checkSuites.filter(
        (suite) =>
          suite.repo === repo.fullName &&
          suite.headSha === head &&
          suite.app === core.botLogin &&
          (!options.failedOnly || hasFailedRun(core.state, suite)),
      );
      if (suites.length === 0) throw new Error(`no check suite to re-run on ${head} of #${number}`);
      for (const suite of suites) await core.emitSuiteRerequested(repo, suite, login);
      return suites.length;
    },
    async close(number: number, options: { merged?: boolean } = {}): Promise<void> {
      const record = pull(number);
      record.headSha = await core.headOf(repo, record);
      record.state = "closed";
      record.merged = options.merged ?? false;
      record.updatedAt = core.now();
      await core.emitPull(repo, record, "closed", login);
    },
  };
  return person;
}
