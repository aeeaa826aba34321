import type { CommitSecret } from "../../../src/artifacts/publish-result.ts";
import { findKnownSecrets } from "../../../src/redact/find-known-secrets.ts";
import { redactSecrets } from "../../../src/redact/redact-secrets.ts";
import { readObjects, type GitObject } from "./read-objects.ts";
import { readGit } from "./run-git.ts";

const NO_OBJECT = /^0+$/;
const GITLINK = "160000";

const OBJECTS_PER_READ = 500;

/** As many as the bundle manifest holds. */
const MAX_FINDINGS = 100;

type NewBlob = { oid: string; commit: string; path: string };

/**
 * The job's own secret values (plain or encoded) in the commits `startSha..head`: in every blob
 * they add (whole files, not only added lines: the bundle carries whole blobs), in the file names,
 * and in the commit objects (message, author, committer). Each finding names the commit and, for
 * a file's content, the file (redacted); never the value.
 */
export async function findSecretsInCommits(
  cwd: string,
  range: { startSha: string; head: string },
  secrets: readonly string[],
): Promise<CommitSecret[]> {
  const commits = (
    await readGit(cwd, ["rev-list", "--reverse", "--topo-order", range.head, `^${range.startSha}`])
  )
    .split("\n")
    .filter((line) => line !== "");
  if (commits.length === 0 || secrets.length === 0) return [];
  const findings: CommitSecret[] = [];
  const blobs = new Map<string, NewBlob>();
  for (const commit of commits) {
    for (const entry of await listNewEntries(cwd, commit)) {
      if (!blobs.has(entry.oid)) blobs.set(entry.oid, { ...entry, commit });
      const found = findKnownSecrets(entry.path, secrets)[0];
      if (found !== undefined) findings.push({ commit, where: "path", encoding: found.encoding });
    }
  }
  for await (const object of readInChunks(cwd, [...commits, ...blobs.keys()])) {
    const found = findKnownSecrets(object.content.toString("utf8"), secrets)[0];
    if (found === undefined) continue;
    const blob = blobs.get(object.oid);
    findings.push(
      blob === undefined
        ? { commit: object.oid, where: "commit", encoding: found.encoding }
        : {
            commit: blob.commit,
            where: "content",
            path: redactSecrets(blob.path, secrets).slice(0, 4096),
            encoding: found.encoding,
          },
    );
  }
  const seen = new Set<string>();
  return findings
    .filter((finding) => {
      const key = `${finding.commit}\0${finding.where}\0${finding.path ?? ""}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, MAX_FINDINGS);
}

/** Objects read a few hundred at a time, so a session that commits a huge tree is not read at once. */
async function* readInChunks(cwd: string, oids: readonly string[]): AsyncGenerator<GitObject> {
  for (let at = 0; at < oids.length; at += OBJECTS_PER_READ)
    yield* await readObjects(cwd, oids.slice(at, at + OBJECTS_PER_READ));
}

/**
 * The blobs a commit's tree has that one of its parents lacks (against each parent for a merge,
 * against nothing for a root commit), with their paths; submodule links are not objects here.
 */
async function listNewEntries(cwd: string, commit: string): Promise<{ oid: string; path: string }[]> {
  const out = await readGit(cwd, [
    "diff-tree",
    "-r",
    "-m",
    "--root",
    "--no-renames",
    "--no-commit-id",
    "-z",
    commit,
  ]);
  const fields = out.split("\0");
  const entries: { oid: string; path: string }[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [, mode = "", , oid = ""] = (fields[i] ?? "").replace(/^:/, "").split(" ");
    const path = fields[i + 1] ?? "";
    if (NO_OBJECT.test(oid) || mode === GITLINK) continue;
    entries.push({ oid, path });
  }
  return entries;
}
