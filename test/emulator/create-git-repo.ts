import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runGit, runGitBytes, runGitOk } from "./run-git.ts";

export type Person = { name: string; email: string };
export type CommitInfo = {
  sha: string;
  tree: string;
  parents: string[];
  message: string;
  author: Person & { date: string };
  committer: Person & { date: string };
};
export type ChangedFile = {
  filename: string;
  status: "added" | "removed" | "modified" | "renamed";
  additions: number;
  deletions: number;
  previousFilename?: string;
};
export type TreeEntry = { mode: string; type: string; sha: string; path: string; size: number };
export type MergeResult = { type: "merged"; sha: string } | { type: "conflict"; detail: string };

/** A bare repository on disk, driven with the real git CLI. `now` stamps commits (the emulator's clock). */
export type GitRepo = ReturnType<typeof createGitRepo>;

const FULL_SHA = /^[0-9a-f]{40}$/;
const DEFAULT_PERSON: Person = { name: "emulator", email: "emulator@example.invalid" };

export function createGitRepo(dir: string, now: () => number) {
  const dateEnv = (author: Person, committer: Person): Record<string, string> => {
    const date = `@${Math.floor(now() / 1000)} +0000`;
    return {
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_NAME: committer.name,
      GIT_COMMITTER_EMAIL: committer.email,
      GIT_COMMITTER_DATE: date,
    };
  };

  // Answers git gives again and again while a plan runs (the harness polls check runs, every API
  // request reads a branch): each `git` a test process starts costs it 10–20 ms of CPU. Refs are
  // remembered until something may move one (`forgetRefs`, bumping `generation`); what a commit SHA
  // names (its history, its fields, its ancestors) never changes.
  const refs = new Map<string, string | null>();
  const immutable = new Map<string, unknown>();
  let generation = 0;
  const remember = async <T>(key: string, read: () => Promise<T>): Promise<T> => {
    if (immutable.has(key)) return structuredClone(immutable.get(key) as T);
    const value = await read();
    immutable.set(key, structuredClone(value));
    return value;
  };
  const readCommitOf = async (sha: string): Promise<CommitInfo> => {
    const format = "%H%n%T%n%P%n%an%n%ae%n%aI%n%cn%n%ce%n%cI%n%B";
    const out = await runGitOk(dir, ["log", "-1", `--format=${format}`, sha]);
    const [h = "", t = "", p = "", an = "", ae = "", ad = "", cn = "", ce = "", cd = "", ...body] =
      out.split("\n");
    return {
      sha: h,
      tree: t,
      parents: p.split(" ").filter(Boolean),
      message: body.join("\n").trimEnd(),
      author: { name: an, email: ae, date: ad },
      committer: { name: cn, email: ce, date: cd },
    };
  };

  const revParse = async (name: string): Promise<string | null> => {
    const result = await runGit(dir, ["rev-parse", "--verify", "--quiet", `${name}^{commit}`]);
    return result.code === 0 ? result.stdout.trim() : null;
  };
  // A branch read from the repository's files as git keeps them (a loose ref, else `packed-refs`),
  // without starting git; anything unusual (a symbolic ref) is left to `git rev-parse`.
  const readBranchRef = async (ref: string): Promise<string | null> => {
    if (ref.split("/").some((part) => part === "" || part.startsWith("."))) return revParse(ref);
    const loose = await readFile(path.join(dir, ref), "utf8").catch(() => null);
    if (loose !== null) return FULL_SHA.test(loose.trim()) ? loose.trim() : revParse(ref);
    const packed = await readFile(path.join(dir, "packed-refs"), "utf8").catch(() => "");
    const line = packed.split("\n").find((entry) => entry.endsWith(` ${ref}`));
    const sha = line?.slice(0, 40);
    return sha !== undefined && FULL_SHA.test(sha) ? sha : null;
  };

  const repo = {
    dir,
    async init(defaultBranch: string): Promise<void> {
      repo.forgetRefs();
      await mkdir(dir, { recursive: true });
      await runGitOk(dir, ["init", "--bare", "--quiet", `--initial-branch=${defaultBranch}`]);
      await runGitOk(dir, ["config", "uploadpack.allowAnySHA1InWant", "true"]);
    },
    /** Refs may have moved outside these functions (a push through `git http-backend`, a fetch into a ref). */
    forgetRefs(): void {
      generation++;
      refs.clear();
    },
    /** The commit a ref, branch or sha names; null when there is none. */
    async resolve(name: string): Promise<string | null> {
      const known = refs.get(name);
      if (known !== undefined) return known;
      const started = generation;
      const sha = name.startsWith("refs/heads/") ? await readBranchRef(name) : await revParse(name);
      // Not when a ref may have moved meanwhile; a commit SHA not (yet) here may arrive with a push.
      if (started === generation && !(sha === null && FULL_SHA.test(name))) refs.set(name, sha);
      return sha;
    },
    async readBranch(branch: string): Promise<string | null> {
      return repo.resolve(`refs/heads/${branch}`);
    },
    /** Whether `sha` is a commit (or a `kind` object) in this repository. */
    async objectExists(sha: string, kind: "commit" | "tree" = "commit"): Promise<boolean> {
      const key = `exists ${sha} ${kind}`;
      if (immutable.has(key)) return true;
      const exists = (await runGit(dir, ["cat-file", "-e", `${sha}^{${kind}}`])).code === 0;
      if (exists && FULL_SHA.test(sha)) immutable.set(key, true);
      return exists;
    },
    /** Sets `ref` to `sha` when it still points at `expected` ("" = must not exist). False when it moved. */
    async updateRef(ref: string, sha: string, expected?: string): Promise<boolean> {
      const args = ["update-ref", ref, sha];
      if (expected !== undefined) args.push(expected === "" ? "0".repeat(40) : expected);
      repo.forgetRefs();
      const moved = (await runGit(dir, args)).code === 0;
      repo.forgetRefs();
      return moved;
    },
    async deleteRef(ref: string): Promise<boolean> {
      repo.forgetRefs();
      const deleted = (await runGit(dir, ["update-ref", "-d", ref])).code === 0;
      repo.forgetRefs();
      return deleted;
    },
    async listBranches(): Promise<Map<string, string>> {
      const out = await runGitOk(dir, [
        "for-each-ref",
        "--format=%(refname:strip=2) %(objectname)",
        "refs/heads",
      ]);
      const branches = new Map<string, string>();
      for (const line of out.split("\n").filter(Boolean)) {
        const at = line.lastIndexOf(" ");
        branches.set(line.slice(0, at), line.slice(at + 1));
      }
      return branches;
    },
    async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
      const read = async () =>
        (await runGit(dir, ["merge-base", "--is-ancestor", ancestor, descendant])).code === 0;
      return FULL_SHA.test(ancestor) && FULL_SHA.test(descendant)
        ? remember(`ancestor ${ancestor} ${descendant}`, read)
        : read();
    },
    async mergeBase(a: string, b: string): Promise<string | null> {
      const result = await runGit(dir, ["merge-base", a, b]);
      return result.code === 0 ? result.stdout.trim() : null;
    },
    /** Ahead/behind counts of `head` against `base`. */
    async countDivergence(base: string, head: string): Promise<{ ahead: number; behind: number }> {
      const out = await runGitOk(dir, ["rev-list", "--left-right", "--count", `${base}...${head}`]);
      const [behind = "0", ahead = "0"] = out.trim().split(/\s+/);
      return { ahead: Number(ahead), behind: Number(behind) };
    },
    async readCommit(sha: string): Promise<CommitInfo> {
      return FULL_SHA.test(sha) ? remember(`commit ${sha}`, () => readCommitOf(sha)) : readCommitOf(sha);
    },
    async listCommits(from: string | null, to: string, limit = 250): Promise<string[]> {
      const read = async () => {
        const range = from ? `${from}..${to}` : to;
        const out = await runGitOk(dir, ["rev-list", `--max-count=${limit}`, "--reverse", range]);
        return out.split("\n").filter(Boolean);
      };
      return (from === null || FULL_SHA.test(from)) && FULL_SHA.test(to)
        ? remember(`commits ${from} ${to} ${limit}`, read)
        : read();
    },
    async readBlob(ref: string, file: string): Promise<Buffer | null> {
      const read = () => runGitBytes(dir, ["cat-file", "blob", `${ref}:${file}`]);
      if (!FULL_SHA.test(ref)) return read();
      const bytes = await remember(`blob ${ref}:${file}`, read);
      return bytes === null ? null : Buffer.from(bytes);
    },
    /** Entries of the tree at `ref:dirPath` ("" for the root); null when it is not a directory. */
    async listTree(ref: string, dirPath: string): Promise<TreeEntry[] | null> {
      const spec = dirPath === "" ? `${ref}^{tree}` : `${ref}:${dirPath}`;
      const type = await runGit(dir, ["cat-file", "-t", spec]);
      if (type.code !== 0 || type.stdout.trim() !== "tree") return null;
      const out = await runGitOk(dir, ["ls-tree", "-l", spec]);
      return out
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const [meta = "", name = ""] = line.split("\t");
          const [mode = "", kind = "", sha = "", size = "0"] = meta.split(/\s+/);
          return {
            mode,
            type: kind,
            sha,
            path: dirPath === "" ? name : `${dirPath}/${name}`,
            size: Number(size) || 0,
          };
        });
    },
    async blobSha(ref: string, file: string): Promise<string | null> {
      const result = await runGit(dir, ["rev-parse", "--verify", "--quiet", `${ref}:${file}`]);
      return result.code === 0 ? result.stdout.trim() : null;
    },
    /** Files changed from `from` to `to`, with line counts. */
    async diffFiles(from: string, to: string): Promise<ChangedFile[]> {
      const status = await runGitOk(dir, ["diff", "--name-status", "-M", "-z", from, to]);
      const numstat = await runGitOk(dir, ["diff", "--numstat", "-M", "-z", from, to]);
      const counts = parseNumstat(numstat);
      const parts = status.split("\0").filter((part) => part !== "");
      const files: ChangedFile[] = [];
      for (let i = 0; i < parts.length;) {
        const code = parts[i++] ?? "";
        if (code.startsWith("R")) {
          const previous = parts[i++] ?? "";
          const filename = parts[i++] ?? "";
          const c = counts.get(filename) ?? { additions: 0, deletions: 0 };
          files.push({ filename, status: "renamed", previousFilename: previous, ...c });
          continue;
        }
        const filename = parts[i++] ?? "";
        const c = counts.get(filename) ?? { additions: 0, deletions: 0 };
        const kind = code === "A" ? "added" : code === "D" ? "removed" : "modified";
        files.push({ filename, status: kind, ...c });
      }
      return files;
    },
    /** Writes a commit with `files` changed on top of `parent` (null: a root commit). A null content deletes the file. */
    async commitFiles(input: {
      parent: string | null;
      files: Record<string, string | Uint8Array | null>;
      message: string;
      author?: Person;
    }): Promise<string> {
      const scratch = await mkdtemp(path.join(tmpdir(), "emulator-index-"));
      const env = { GIT_INDEX_FILE: path.join(scratch, "index") };
      try {
        if (input.parent) await runGitOk(dir, ["read-tree", input.parent], { env });
        for (const [file, content] of Object.entries(input.files)) {
          if (content === null) {
            // `--index-info` works in a bare repository (`--force-remove` needs a work tree); mode 0 removes.
            await runGitOk(dir, ["update-index", "--index-info"], {
              env,
              input: `0 ${"0".repeat(40)}\t${file}\n`,
            });
            continue;
          }
          const blob = (await runGitOk(dir, ["hash-object", "-w", "--stdin"], { input: content })).trim();
          await runGitOk(dir, ["update-index", "--add", "--cacheinfo", `100644,${blob},${file}`], { env });
        }
        const tree = (await runGitOk(dir, ["write-tree"], { env })).trim();
        const author = input.author ?? DEFAULT_PERSON;
        const args = ["commit-tree", tree, "-m", input.message];
        if (input.parent) args.push("-p", input.parent);
        return (await runGitOk(dir, args, { env: dateEnv(author, author) })).trim();
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
    /**
     * `POST …/git/trees`: `base_tree`'s entries with `entries` applied (a null `sha` removes the path;
     * nested paths are fine, as on GitHub). Returns the new tree's SHA, or null when an object is missing.
     */
    async writeTree(
      baseTree: string | null,
      entries: { path: string; mode: string; sha: string | null }[],
    ): Promise<string | null> {
      const scratch = await mkdtemp(path.join(tmpdir(), "emulator-index-"));
      const env = { GIT_INDEX_FILE: path.join(scratch, "index") };
      try {
        if (baseTree) {
          if ((await runGit(dir, ["read-tree", baseTree], { env })).code !== 0) return null;
        }
        for (const entry of entries)
          if (entry.sha !== null && (await runGit(dir, ["cat-file", "-e", entry.sha])).code !== 0)
            return null;
        // `--index-info` works in a bare repository (`--force-remove` needs a work tree); mode 0 removes.
        const info = entries
          .map((e) => (e.sha === null ? `0 ${"0".repeat(40)}\t${e.path}` : `${e.mode} ${e.sha}\t${e.path}`))
          .join("\n");
        await runGitOk(dir, ["update-index", "--index-info"], { env, input: `${info}\n` });
        return (await runGitOk(dir, ["write-tree"], { env })).trim();
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
    /** What `ref` points at, not peeled (a ref may name a tag object), with the object's type. */
    async readRefObject(ref: string): Promise<{ sha: string; type: string } | null> {
      const named = await runGit(dir, ["rev-parse", "--verify", "--quiet", ref]);
      if (named.code !== 0) return null;
      const sha = named.stdout.trim();
      const type = (await runGitOk(dir, ["cat-file", "-t", sha])).trim();
      return { sha, type };
    },
    /**
     * `POST …/git/tags`: an annotated tag object (no ref) on `object`, written with `git mktag`,
     * which refuses what GitHub refuses (a missing object, a type that is not the object's).
     */
    async writeTag(input: {
      tag: string;
      message: string;
      object: string;
      type: string;
      tagger: Person;
    }): Promise<string | null> {
      const date = `${Math.floor(now() / 1000)} +0000`;
      const text = [
        `object ${input.object}`,
        `type ${input.type}`,
        `tag ${input.tag}`,
        `tagger ${input.tagger.name} <${input.tagger.email}> ${date}`,
        "",
        input.message,
      ].join("\n");
      const made = await runGit(dir, ["mktag"], { input: text.endsWith("\n") ? text : `${text}\n` });
      return made.code === 0 ? made.stdout.trim() : null;
    },
    /** A tag object's fields, or null when `sha` is no tag object. */
    async readTag(sha: string): Promise<{
      tag: string;
      message: string;
      object: { sha: string; type: string };
      tagger: { name: string; email: string; date: string };
    } | null> {
      if ((await runGit(dir, ["cat-file", "-t", sha])).stdout.trim() !== "tag") return null;
      const text = await runGitOk(dir, ["cat-file", "tag", sha]);
      const end = text.indexOf("\n\n");
      const headers = new Map(
        (end < 0 ? text : text.slice(0, end)).split("\n").map((line) => {
          const space = line.indexOf(" ");
          return [line.slice(0, space), line.slice(space + 1)] as const;
        }),
      );
      const tagger = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(headers.get("tagger") ?? "");
      return {
        tag: headers.get("tag") ?? "",
        message: end < 0 ? "" : text.slice(end + 2),
        object: { sha: headers.get("object") ?? "", type: headers.get("type") ?? "" },
        tagger: {
          name: tagger?.[1] ?? "",
          email: tagger?.[2] ?? "",
          date: new Date(Number(tagger?.[3] ?? 0) * 1000).toISOString().replace(".000Z", "Z"),
        },
      };
    },
    /** `POST …/git/commits`: a commit of `tree` with `parents`, by `author` (GitHub's default: the token's user). */
    async commitTree(tree: string, parents: string[], message: string, author: Person): Promise<string> {
      const args = ["commit-tree", tree, "-m", message, ...parents.flatMap((p) => ["-p", p])];
      return (await runGitOk(dir, args, { env: dateEnv(author, author) })).trim();
    },
    /** A real three-way merge of `head` into `base` (`git merge-tree --write-tree`); a merge commit with both parents on success. */
    async merge(base: string, head: string, message: string, committer: Person): Promise<MergeResult> {
      const result = await runGit(dir, ["merge-tree", "--write-tree", "--name-only", base, head]);
      if (result.code === 1)
        return { type: "conflict", detail: result.stdout.split("\n").slice(1).join("\n").trim() };
      if (result.code !== 0) throw new Error(`git merge-tree exited ${result.code}: ${result.stderr.trim()}`);
      const tree = result.stdout.split("\n")[0]?.trim() ?? "";
      const args = ["commit-tree", tree, "-p", base, "-p", head, "-m", message];
      const sha = (await runGitOk(dir, args, { env: dateEnv(committer, committer) })).trim();
      return { type: "merged", sha };
    },
  };
  return repo;
}

function parseNumstat(out: string): Map<string, { additions: number; deletions: number }> {
  const counts = new Map<string, { additions: number; deletions: number }>();
  const parts = out.split("\0");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? "";
    const fields = part.split("\t");
    if (fields.length < 3) continue;
    const [add = "0", del = "0", name = ""] = fields;
    const additions = Number(add) || 0;
    const deletions = Number(del) || 0;
    if (name === "") {
      // A rename: the next two parts are the old and new names.
      i += 2;
      counts.set(parts[i] ?? "", { additions, deletions });
    } else counts.set(name, { additions, deletions });
  }
  return counts;
}
