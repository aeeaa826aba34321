import type {
  CheckRunRecord,
  CheckSuiteRecord,
  CommentRecord,
  EmulatorState,
  PullRecord,
  RepoRecord,
  Role,
} from "./emulator-state.ts";
import { takeId } from "./emulator-state.ts";
import { buildWebhookPayload } from "./build-webhook-payload.ts";
import { latestRunsOf, rerequestedSuiteJson } from "./check-suites.ts";
import type { WebhookSender } from "./create-webhook-sender.ts";
import { checkRunJson, commentJson, labelJson, pullJson } from "./github-json.ts";
import { createFork, exposePullHead } from "./fork-repo.ts";
import { type JsonContext } from "./user-json.ts";

type Json = Record<string, unknown>;

/**
 * The emulator's shared operations: what REST handlers and the "act as a person" helpers both do
 * to state and git, each firing the webhook GitHub would fire.
 */
export type Core = ReturnType<typeof createCore>;

export function createCore(input: {
  state: EmulatorState;
  json: JsonContext;
  webhooks: WebhookSender;
  now: () => number;
  botLogin: string;
  defaultRole: Role;
}) {
  const { state, json, webhooks, now } = input;

  const core = {
    state,
    json,
    webhooks,
    now,
    botLogin: input.botLogin,
    /** The role of anyone without a configured one. */
    defaultRole: input.defaultRole,
    findRepo(owner: string, name: string): RepoRecord | undefined {
      return state.repos.get(`${owner}/${name}`.toLowerCase());
    },
    requireRepo(fullName: string): RepoRecord {
      const repo = state.repos.get(fullName.toLowerCase());
      if (!repo) throw new Error(`the emulator has no repository ${fullName}`);
      return repo;
    },
    findPull(repo: RepoRecord, number: number): PullRecord | undefined {
      return state.pulls.find((p) => p.repo === repo.fullName && p.number === number);
    },
    emit(repo: RepoRecord, event: string, action: string | null, sender: string, override: Json) {
      return webhooks.send(event, buildWebhookPayload(json, repo, event, action, sender, override));
    },
    /** The head sha of a pull request: its branch tip while open, the recorded one once closed. */
    async headOf(repo: RepoRecord, pull: PullRecord): Promise<string> {
      if (pull.state === "closed" || pull.headRepo !== repo.fullName) return pull.headSha;
      return (await repo.git.readBranch(pull.headRef)) ?? pull.headSha;
    },
    async pullJson(repo: RepoRecord, pull: PullRecord): Promise<Json> {
      const head = await core.headOf(repo, pull);
      const base = (await repo.git.readBranch(pull.baseRef)) ?? "";
      // A deleted fork: GitHub sends `head.repo: null`.
      const headRepo = pull.headRepo === repo.fullName ? repo : (core.findRepoByName(pull.headRepo) ?? null);
      return pullJson(json, repo, pull, head, base, headRepo);
    },
    findRepoByName(fullName: string): RepoRecord | undefined {
      return state.repos.get(fullName.toLowerCase());
    },
    /** `fullName`, a fork of `parent`: the existing one, else a new fork of `parent`'s branches as they are now. */
    async ensureFork(parent: RepoRecord, fullName: string): Promise<RepoRecord> {
      const known = core.findRepoByName(fullName);
      if (known) {
        if (known.forkOf?.toLowerCase() !== parent.fullName.toLowerCase())
          throw new Error(`${fullName} is not a fork of ${parent.fullName}`);
        return known;
      }
      return createFork(state, parent, fullName, now);
    },
    async emitPull(repo: RepoRecord, pull: PullRecord, action: string, sender: string, extra: Json = {}) {
      return core.emit(repo, "pull_request", action, sender, {
        number: pull.number,
        pull_request: await core.pullJson(repo, pull),
        ...extra,
      });
    },
    /** Moves a branch (compare-and-swap on `expected` when given) and fires `synchronize` for open pull requests on it. */
    async moveBranch(
      repo: RepoRecord,
      branch: string,
      sha: string,
      sender: string,
      expected?: string,
    ): Promise<boolean> {
      const before = (await repo.git.readBranch(branch)) ?? "0".repeat(40);
      if (!(await repo.git.updateRef(`refs/heads/${branch}`, sha, expected))) return false;
      if (before !== sha) await core.announcePush(repo, branch, before, sha, sender);
      return true;
    },
    /**
     * A branch of `repo` moved: open pull requests with it as their head get `synchronize` (in their
     * base repository: for a fork's branch, after its head is copied there as `refs/pull/<n>/head`).
     */
    async announcePush(repo: RepoRecord, branch: string, before: string, after: string, sender: string) {
      for (const pull of state.pulls) {
        if (pull.headRepo !== repo.fullName || pull.state !== "open" || pull.headRef !== branch) continue;
        const base = pull.repo === repo.fullName ? repo : core.findRepoByName(pull.repo);
        if (!base) continue;
        if (base !== repo) await exposePullHead(base, repo, pull.number, after);
        pull.headSha = after;
        pull.updatedAt = now();
        await core.emitPull(base, pull, "synchronize", sender, { before, after });
      }
    },
    async changeLabels(repo: RepoRecord, pull: PullRecord, add: string[], remove: string[], sender: string) {
      for (const name of add) {
        if (pull.labels.includes(name)) continue;
        pull.labels.push(name);
        await core.emitPull(repo, pull, "labeled", sender, { label: labelJson(json, repo, name) });
      }
      for (const name of remove) {
        if (!pull.labels.includes(name)) continue;
        pull.labels = pull.labels.filter((l) => l !== name);
        await core.emitPull(repo, pull, "unlabeled", sender, { label: labelJson(json, repo, name) });
      }
    },
    async addComment(repo: RepoRecord, pull: PullRecord, body: string, user: string): Promise<CommentRecord> {
      const at = now();
      const comment: CommentRecord = {
        repo: repo.fullName,
        id: takeId(state),
        issueNumber: pull.number,
        body,
        user,
        createdAt: at,
        updatedAt: at,
      };
      state.comments.push(comment);
      core.emit(repo, "issue_comment", "created", user, {
        issue: await core.issueJson(repo, pull),
        comment: commentJson(json, repo, comment),
      });
      return comment;
    },
    async issueJson(repo: RepoRecord, pull: PullRecord): Promise<Json> {
      const p = await core.pullJson(repo, pull);
      return {
        url: p["issue_url"],
        id: pull.id,
        node_id: `I_${pull.id}`,
        number: pull.number,
        title: pull.title,
        user: p["user"],
        labels: p["labels"],
        state: pull.state,
        locked: false,
        body: pull.body,
        comments: state.comments.filter((c) => c.repo === repo.fullName && c.issueNumber === pull.number)
          .length,
        created_at: p["created_at"],
        updated_at: p["updated_at"],
        closed_at: p["closed_at"],
        author_association: "MEMBER",
        html_url: p["html_url"],
        pull_request: {
          url: p["url"],
          html_url: p["html_url"],
          diff_url: null,
          patch_url: null,
          merged_at: p["merged_at"],
        },
      };
    },
    /**
     * The open pull requests whose head is `sha` (as check runs list them). GitHub leaves pull
     * requests from forks out of a check run's `pull_requests`.
     */
    async pullsAt(repo: RepoRecord, sha: string): Promise<Json[]> {
      const found: Json[] = [];
      for (const pull of state.pulls) {
        if (pull.repo !== repo.fullName || pull.state !== "open" || pull.headRepo !== repo.fullName) continue;
        if ((await core.headOf(repo, pull)) !== sha) continue;
        const base = (await repo.git.readBranch(pull.baseRef)) ?? "";
        found.push({
          id: pull.id,
          number: pull.number,
          url: `${json.url}/repos/${repo.fullName}/pulls/${pull.number}`,
          head: {
            ref: pull.headRef,
            sha,
            repo: { id: repo.id, name: repo.name, url: `${json.url}/repos/${repo.fullName}` },
          },
          base: {
            ref: pull.baseRef,
            sha: base,
            repo: { id: repo.id, name: repo.name, url: `${json.url}/repos/${repo.fullName}` },
          },
        });
      }
      return found;
    },
    async checkRunJson(repo: RepoRecord, run: CheckRunRecord): Promise<Json> {
      return checkRunJson(json, repo, run, await core.pullsAt(repo, run.headSha));
    },
    async emitCheckRun(
      repo: RepoRecord,
      run: CheckRunRecord,
      action: string,
      sender: string,
      extra: Json = {},
    ) {
      return core.emit(repo, "check_run", action, sender, {
        check_run: await core.checkRunJson(repo, run),
        ...extra,
      });
    },
    /** `check_suite.rerequested`, which GitHub sends only to the app that owns the suite. */
    async emitSuiteRerequested(repo: RepoRecord, suite: CheckSuiteRecord, sender: string) {
      const pulls = (await core.pullsAt(repo, suite.headSha)).filter((pull) => {
        const record = state.pulls.find((p) => p.repo === repo.fullName && p.id === pull["id"]);
        return record !== undefined && record.headRepo === repo.fullName;
      });
      const headBranch =
        state.pulls.find(
          (p) =>
            p.repo === repo.fullName && p.headRepo === repo.fullName && pulls.some((j) => j["id"] === p.id),
        )?.headRef ?? null;
      suite.updatedAt = now();
      return core.emit(repo, "check_suite", "rerequested", sender, {
        check_suite: rerequestedSuiteJson(json, repo, suite, {
          headBranch,
          pulls,
          commit: await repo.git.readCommit(suite.headSha),
          runs: latestRunsOf(state, suite).length,
        }),
      });
    },
  };
  return core;
}
