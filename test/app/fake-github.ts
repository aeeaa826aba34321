import { createHash } from "node:crypto";
import nock from "nock";
import type { Heartbeat } from "../../src/artifacts/heartbeat.ts";
import type { StageResult } from "../../src/artifacts/stage-result.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { REPO } from "../support/webhook-payloads.ts";
import { makeZip } from "../github/make-zip.ts";

/**
 * A small stateful GitHub behind H5a's nock mock: one catch-all interceptor per method routes
 * requests for the test repository to in-memory refs, files, check runs, comments, dispatches and
 * merges. Every request is still validated against the OpenAPI description by the mock; a request
 * no route knows is recorded in `unhandled` (tests assert it stays empty) and answered 501.
 */

type Json = Record<string, unknown>;
type Reply = [number, unknown?, Record<string, string>?];

export type MergeAnswer = 201 | 204 | 409;

export type PullFileStatus =
  "added" | "removed" | "modified" | "renamed" | "copied" | "changed" | "unchanged";

export type FakeGitHub = {
  refs: Map<string, string>;
  /** `ref:path` → text */
  files: Map<string, string>;
  /** A pull request's files: a name alone is `added`; GitHub also lists `modified`, `removed`… */
  pullFiles: Map<number, (string | { filename: string; status: PullFileStatus })[]>;
  roles: Map<string, string>;
  checkRuns: Json[];
  comments: Json[];
  reactions: { commentId: number; content: string }[];
  dispatches: { runId: number; inputs: Record<string, string> }[];
  merges: { head: string; base: string; status: number }[];
  /** Commits written through the Git Data API: their tree's changed entries, message and parents. */
  commits: {
    sha: string;
    message: string;
    parents: string[];
    entries: { path: string; sha: string | null }[];
  }[];
  /** Annotated tag objects written through the Git Data API (`POST /git/tags`). */
  tags: { sha: string; tag: string; message: string; object: string }[];
  /** Answers for the next merges of a head branch (default 201). */
  mergeAnswers: Map<string, MergeAnswer[]>;
  /**
   * The changed files a 201 merge answer lists (GitHub's `commit` schema makes `files` optional;
   * null: the answer has none, and loom reads the pull request's files on the merge's push).
   */
  mergeFiles: { filename: string; status: string; previous_filename?: string }[] | null;
  cancelled: number[];
  /** Repository labels by lower-case name (GitHub's names are unique ignoring case). */
  labels: Map<string, { name: string; color: string; description: string | null }>;
  /** What GET /pulls/{n} says. */
  pullState: "open" | "closed";
  /** Runs GitHub reports: status, conclusion and the loom-result the run uploaded. */
  runs: Map<number, { status: string; conclusion: string | null; result: StageResult | null }>;
  /** Marks a dispatched run finished with its loom-result (served as a zipped artifact). */
  finishRun(runId: number, conclusion: string, result: StageResult | null): void;
  /** A running run uploads its next `loom-heartbeat-<n>` artifact, taken at `timestamp`. */
  beat(runId: number, timestamp: number): void;
  unhandled: string[];
  /** Every request the fake answered, with the status it answered (304s included), in order. */
  answers: { method: string; path: string; status: number }[];
  /**
   * Requests GitHub fails (an outage): the next `times` requests whose method matches and whose
   * path matches `path` get `status` instead of an answer (`times: Infinity`: every one).
   */
  faults: { method: string; path: RegExp; status: number; times: number }[];
  /** GitHub's compare status of `base...head` (default: by age, the later commit contains the earlier). */
  compare: (base: string, head: string) => "ahead" | "identical" | "behind" | "diverged";
  /** The files GitHub lists for a compare (null: the answer lists none). */
  compareFiles: { filename: string; status: string }[] | null;
  /** Removes the catch-alls (call before `gh.done()`). */
  close(): void;
};

const BASE = `/repos/${REPO.owner}/${REPO.repo}`;
const BLOB = "https://results-receiver.actions.githubusercontent.com";
let shaCounter = 0;
/** When each SHA `nextSha` made was made: a later commit is taken to contain an earlier one. */
const shaOrder = new Map<string, number>();

export function nextSha(): string {
  shaCounter += 1;
  const sha = shaCounter.toString(16).padStart(40, "a");
  shaOrder.set(sha, shaCounter);
  return sha;
}

/**
 * GitHub's compare of `base...head` when a test sets none: a commit made later contains one made
 * earlier (`ahead`; `behind` the other way); SHAs the fake did not make are taken as `ahead`.
 */
function compareByAge(base: string, head: string): "ahead" | "identical" | "behind" {
  if (base === head) return "identical";
  const [b, h] = [shaOrder.get(base), shaOrder.get(head)];
  return b !== undefined && h !== undefined && h < b ? "behind" : "ahead";
}

/** Artifact ids of each fake's runs' heartbeats, oldest first. */
const heartbeatsOf = new WeakMap<FakeGitHub, Map<number, number[]>>();

export function createFakeGitHub(gh: GitHubMock): FakeGitHub {
  const heartbeats = new Map<number, number[]>();
  const fake: FakeGitHub = {
    refs: new Map(),
    files: new Map(),
    pullFiles: new Map(),
    roles: new Map(),
    checkRuns: [],
    comments: [],
    reactions: [],
    dispatches: [],
    commits: [],
    tags: [],
    merges: [],
    mergeAnswers: new Map(),
    mergeFiles: null,
    cancelled: [],
    labels: new Map(),
    pullState: "open",
    runs: new Map(),
    finishRun: (runId, conclusion, result) => {
      fake.runs.set(runId, { status: "completed", conclusion, result });
      // The run's publish job pushed the commit its checks ran on to the stage branch.
      const branch = fake.dispatches.find((d) => d.runId === runId)?.inputs["branch"];
      if (result !== null && branch !== undefined) fake.refs.set(branch, result.head_sha);
      if (result !== null) {
        const zip = makeZip({ "loom-result.json": JSON.stringify(result) });
        gh.other(BLOB)
          .get(`/blob/${runId}`)
          .query(true)
          .reply(200, zip, { "content-type": "application/zip" });
      }
    },
    beat: (runId, timestamp) => {
      const beats = heartbeats.get(runId) ?? [];
      const id = 900_000 + runId * 100 + beats.length;
      beats.push(id);
      heartbeats.set(runId, beats);
      const heartbeat: Heartbeat = {
        stage_id: fake.dispatches.find((d) => d.runId === runId)?.inputs["stage_id"] ?? "",
        session_id: "s",
        attempt: 1,
        timestamp: new Date(timestamp).toISOString(),
        context_percent: 10,
        last_tool: "Write",
        activity: "Write src/a.ts",
        turns: 3,
        cost_usd: 0.01,
      };
      // Read at every deadline it is the newest at: served as often as asked.
      gh.other(BLOB)
        .persist()
        .get(`/blob/${id}`)
        .query(true)
        .reply(200, makeZip({ "heartbeat.json": JSON.stringify(heartbeat) }), {
          "content-type": "application/zip",
        });
    },
    unhandled: [],
    answers: [],
    faults: [],
    compare: compareByAge,
    compareFiles: null,
    close: () => undefined,
  };
  heartbeatsOf.set(fake, heartbeats);
  const interceptors: nock.Interceptor[] = [];
  for (const method of ["GET", "POST", "PATCH", "DELETE"] as const) {
    const interceptor = gh.api.persist().intercept(/.*/, method);
    // nock 15 hands the reply function the Request; the mock has already recorded its body.
    interceptor.reply(function (request: Request) {
      const url = new URL(request.url);
      const path = url.pathname + url.search;
      const recorded = gh.requests.findLast((r) => r.method === method && r.path === path);
      const body = recorded?.body as Json | undefined;
      const fault = fake.faults.find((f) => f.times > 0 && f.method === method && f.path.test(url.pathname));
      if (fault !== undefined) {
        fault.times -= 1;
        return [fault.status, { message: "Server Error" }];
      }
      const [status, data, headers] = route(
        fake,
        method,
        url,
        body ?? {},
        request.headers.get("accept") ?? "",
      );
      // GitHub's conditional requests: a JSON answer carries an ETag, and the same answer asked
      // with it in `If-None-Match` is a 304 (which costs no rate limit).
      if (method === "GET" && status === 200 && typeof data === "object" && data !== null) {
        const etag = `"${createHash("sha1").update(JSON.stringify(data)).digest("hex")}"`;
        const notModified = request.headers.get("if-none-match") === etag;
        fake.answers.push({ method, path: url.pathname, status: notModified ? 304 : 200 });
        return notModified ? [304, ""] : [200, data as nock.Body, { ...headers, etag }];
      }
      fake.answers.push({ method, path: url.pathname, status });
      return [status, data as nock.Body, headers ?? {}];
    });
    interceptors.push(interceptor);
  }
  fake.close = () => {
    for (const interceptor of interceptors) nock.removeInterceptor(interceptor);
  };
  return fake;
}

/** Trees written through the Git Data API, by SHA: the entries each changed. */
const trees = new Map<string, { path: string; sha: string | null }[]>();

function route(fake: FakeGitHub, method: string, url: URL, body: Json, accept: string): Reply {
  const path = decodeURIComponent(url.pathname);
  const q = url.searchParams;
  let m: RegExpExecArray | null;
  if (method === "POST" && /^\/app\/installations\/\d+\/access_tokens$/.test(path)) {
    return [201, { token: "ghs_testtoken", expires_at: "2099-01-01T00:00:00Z", permissions: {} }];
  }
  // Another repository's file (Probot's config plugin looks for `<owner>/.github`): GitHub answers
  // 404 for a repository that does not exist or that the installation cannot see.
  if (method === "GET" && !path.startsWith(`${BASE}/`) && /^\/repos\/[^/]+\/[^/]+\/contents\//.test(path))
    return [404, { message: "Not Found" }];
  if (!path.startsWith(BASE)) return unhandled(fake, method, path);
  const rest = path.slice(BASE.length);
  if (method === "GET" && rest === "") {
    return [200, { name: REPO.repo, full_name: REPO.fullName, default_branch: REPO.defaultBranch }];
  }
  if (method === "GET" && (m = /^\/pulls\/(\d+)\/files$/.exec(rest))) {
    const files = fake.pullFiles.get(Number(m[1])) ?? [];
    return [
      200,
      files.map((file, i) => ({
        // GitHub: the file's blob at the pull request's head.
        sha: pullFileSha(fake, typeof file === "string" ? file : file.filename),
        ...(typeof file === "string" ? { filename: file, status: "added" } : file),
        additions: 1,
        deletions: 0,
        changes: 1,
        blob_url: "",
        raw_url: "",
        contents_url: "",
        patch: "",
        index: i,
      })),
    ];
  }
  if (method === "GET" && (m = /^\/pulls\/(\d+)$/.exec(rest))) {
    return [
      200,
      {
        number: Number(m[1]),
        state: fake.pullState,
        merged: false,
        user: { login: "alice", type: "User" },
        labels: [],
        head: { sha: fake.refs.get("feature/plan"), ref: "feature/plan", repo: { full_name: REPO.fullName } },
        base: { ref: REPO.defaultBranch },
      },
    ];
  }
  if (method === "GET" && (m = /^\/contents\/(.+)$/.exec(rest))) {
    const ref = q.get("ref") ?? REPO.defaultBranch;
    const sha = fake.refs.get(ref) ?? ref;
    const text = fake.files.get(`${sha}:${m[1]}`) ?? fake.files.get(`${ref}:${m[1]}`);
    if (text === undefined) return [404, { message: "Not Found" }];
    // `application/vnd.github.raw+json` (or `.v3.raw`): GitHub answers the file's bytes alone.
    if (/application\/vnd\.github(\.v3)?\.raw/.test(accept))
      return [200, text, { "content-type": "application/vnd.github.raw; charset=utf-8" }];
    // Files of 1 MiB to 100 MiB: GitHub's object answer has `encoding: "none"` and no content.
    const large = Buffer.byteLength(text) > 1024 * 1024;
    const content = large ? "" : Buffer.from(text).toString("base64");
    return [
      200,
      {
        type: "file",
        name: m[1],
        path: m[1],
        sha: blobShaOf(text),
        size: Buffer.byteLength(text),
        encoding: large ? "none" : "base64",
        content,
      },
    ];
  }
  if (method === "GET" && (m = /^\/collaborators\/([^/]+)\/permission$/.exec(rest))) {
    const role = fake.roles.get(m[1] ?? "");
    if (role === undefined) return [404, { message: "Not Found" }];
    const permission = role === "maintain" ? "write" : role === "triage" ? "read" : role;
    return [200, { permission, role_name: role, user: { login: m[1] } }];
  }
  if (method === "GET" && (m = /^\/git\/ref\/heads\/(.+)$/.exec(rest))) {
    const sha = fake.refs.get(m[1] ?? "");
    if (sha === undefined) return [404, { message: "Not Found" }];
    return [200, { ref: `refs/heads/${m[1]}`, object: { sha, type: "commit" } }];
  }
  if (method === "POST" && rest === "/labels") {
    // GitHub: 201, or 422 with `errors[].code: already_exists` for a name taken in any letter case.
    const name = String(body["name"]);
    if (fake.labels.has(name.toLowerCase()))
      return [
        422,
        {
          message: "Validation Failed",
          errors: [{ resource: "Label", code: "already_exists", field: "name" }],
        },
      ];
    const label = {
      name,
      color: typeof body["color"] === "string" ? body["color"] : "ededed",
      description: (body["description"] as string) ?? null,
    };
    fake.labels.set(name.toLowerCase(), label);
    return [201, { id: fake.labels.size, node_id: "LA_x", url: "", default: false, ...label }];
  }
  if (method === "POST" && rest === "/git/refs") {
    const name = String(body["ref"]).replace(/^refs\/heads\//, "");
    if (fake.refs.has(name)) return [422, { message: "Reference already exists" }];
    fake.refs.set(name, String(body["sha"]));
    return [201, { ref: body["ref"], object: { sha: body["sha"] } }];
  }
  if (method === "GET" && (m = /^\/git\/commits\/([0-9a-f]{40})$/.exec(rest))) {
    return [200, { sha: m[1], tree: { sha: `${"e".repeat(8)}${(m[1] ?? "").slice(8)}` }, parents: [] }];
  }
  if (method === "POST" && rest === "/git/trees") {
    const sha = nextSha();
    trees.set(
      sha,
      (body["tree"] as { path: string; sha: string | null }[]).map((e) => ({ path: e.path, sha: e.sha })),
    );
    return [201, { sha, url: "", tree: [], truncated: false }];
  }
  if (method === "POST" && rest === "/git/commits") {
    const sha = nextSha();
    fake.commits.push({
      sha,
      message: String(body["message"]),
      parents: (body["parents"] as string[]) ?? [],
      entries: trees.get(String(body["tree"])) ?? [],
    });
    return [201, { sha, message: body["message"], tree: { sha: body["tree"] } }];
  }
  if (method === "POST" && rest === "/git/tags") {
    const sha = nextSha();
    const tag = {
      sha,
      tag: String(body["tag"]),
      message: String(body["message"]),
      object: String(body["object"]),
    };
    fake.tags.push(tag);
    return [201, { ...tag, object: { sha: tag.object, type: body["type"] } }];
  }
  // Refs outside branches (`refs/loom/continue/…`): kept in `refs` under their full name.
  if (method === "PATCH" && (m = /^\/git\/refs\/((?!heads\/).+)$/.exec(rest))) {
    const name = `refs/${decodeURIComponent(m[1] ?? "")}`;
    if (!fake.refs.has(name)) return [422, { message: "Reference does not exist" }];
    if (body["force"] !== true) return [422, { message: "Update is not a fast forward" }];
    fake.refs.set(name, String(body["sha"]));
    return [200, { ref: name, object: { sha: body["sha"] } }];
  }
  if (method === "PATCH" && (m = /^\/git\/refs\/heads\/(.+)$/.exec(rest))) {
    const name = decodeURIComponent(m[1] ?? "");
    const commit = fake.commits.find((c) => c.sha === body["sha"]);
    const current = fake.refs.get(name);
    // GitHub: 422 "Update is not a fast forward" unless the new commit descends from the ref.
    if (body["force"] !== true && (commit === undefined || !commit.parents.includes(current ?? "")))
      return [422, { message: "Update is not a fast forward" }];
    fake.refs.set(name, String(body["sha"]));
    return [200, { ref: `refs/heads/${name}`, object: { sha: body["sha"] } }];
  }
  if (method === "DELETE" && (m = /^\/git\/refs\/heads\/(.+)$/.exec(rest))) {
    fake.refs.delete(m[1] ?? "");
    return [204];
  }
  if (method === "GET" && /^\/actions\/workflows\/[^/]+\/runs$/.test(rest)) {
    const runs = fake.dispatches.map((d) => workflowRun(d.runId, d.inputs["key"] ?? ""));
    return [200, { total_count: runs.length, workflow_runs: runs }];
  }
  if (method === "POST" && /^\/actions\/workflows\/[^/]+\/dispatches$/.test(rest)) {
    const runId = 5000 + fake.dispatches.length + 1;
    fake.dispatches.push({ runId, inputs: body["inputs"] as Record<string, string> });
    return [
      200,
      {
        workflow_run_id: runId,
        run_url: `https://api.github.com${BASE}/actions/runs/${runId}`,
        html_url: `https://github.com/${REPO.fullName}/actions/runs/${runId}`,
      },
    ];
  }
  if (method === "GET" && (m = /^\/actions\/runs\/(\d+)$/.exec(rest))) {
    const dispatch = fake.dispatches.find((d) => d.runId === Number(m?.[1]));
    if (!dispatch) return [404, { message: "Not Found" }];
    const run = fake.runs.get(dispatch.runId) ?? { status: "in_progress", conclusion: null };
    return [
      200,
      {
        ...workflowRun(dispatch.runId, dispatch.inputs["key"] ?? ""),
        status: run.status,
        conclusion: run.conclusion,
      },
    ];
  }
  if (method === "GET" && (m = /^\/actions\/runs\/(\d+)\/artifacts$/.exec(rest))) {
    const runId = Number(m[1]);
    const result = fake.runs.get(runId)?.result;
    const artifact = (id: number, name: string) => ({
      id,
      name,
      size_in_bytes: 200,
      created_at: "2026-11-22T00:00:00Z",
      updated_at: "2026-11-22T00:00:00Z",
      expired: false,
      url: "u",
      archive_download_url: "d",
    });
    const artifacts = [
      ...(result ? [artifact(runId, "loom-result")] : []),
      ...(heartbeatsOf.get(fake)?.get(runId) ?? []).map((id, n) => artifact(id, `loom-heartbeat-${n + 1}`)),
    ];
    return [200, { total_count: artifacts.length, artifacts }];
  }
  if (method === "GET" && (m = /^\/actions\/artifacts\/(\d+)\/zip$/.exec(rest))) {
    return [302, "", { location: `${BLOB}/blob/${m[1]}?sig=x` }];
  }
  if (method === "POST" && (m = /^\/actions\/runs\/(\d+)\/cancel$/.exec(rest))) {
    fake.cancelled.push(Number(m[1]));
    return [202, {}];
  }
  if (method === "GET" && (m = /^\/commits\/([^/]+)\/check-runs$/.exec(rest))) {
    const runs = fake.checkRuns.filter(
      (r) => r["head_sha"] === m?.[1] && (!q.get("check_name") || r["name"] === q.get("check_name")),
    );
    return [200, { total_count: runs.length, check_runs: runs }];
  }
  if (method === "POST" && rest === "/check-runs") {
    const run = {
      ...body,
      id: 7000 + fake.checkRuns.length + 1,
      output: { title: null, ...(body["output"] as Json) },
    };
    fake.checkRuns.push(run);
    return [201, run];
  }
  if (method === "GET" && (m = /^\/check-runs\/(\d+)$/.exec(rest))) {
    const run = fake.checkRuns.find((r) => r["id"] === Number(m?.[1]));
    return run ? [200, run] : [404, { message: "Not Found" }];
  }
  if (method === "PATCH" && (m = /^\/check-runs\/(\d+)$/.exec(rest))) {
    const run = fake.checkRuns.find((r) => r["id"] === Number(m?.[1]));
    if (!run) return [404, { message: "Not Found" }];
    Object.assign(run, body, { output: { ...(run["output"] as Json), ...(body["output"] as Json) } });
    return [200, run];
  }
  if (method === "GET" && /^\/issues\/\d+\/comments$/.test(rest)) return [200, fake.comments];
  if (method === "POST" && /^\/issues\/\d+\/comments$/.test(rest)) {
    const comment = {
      id: 8000 + fake.comments.length + 1,
      body: body["body"],
      user: { login: "loom-app[bot]", type: "Bot" },
    };
    fake.comments.push(comment);
    return [201, comment];
  }
  if (method === "PATCH" && (m = /^\/issues\/comments\/(\d+)$/.exec(rest))) {
    const comment = fake.comments.find((c) => c["id"] === Number(m?.[1]));
    if (!comment) return [404, { message: "Not Found" }];
    comment["body"] = body["body"];
    return [200, comment];
  }
  if (method === "POST" && (m = /^\/issues\/comments\/(\d+)\/reactions$/.exec(rest))) {
    fake.reactions.push({ commentId: Number(m[1]), content: String(body["content"]) });
    return [201, { id: 1, content: body["content"] }];
  }
  if (method === "POST" && rest === "/merges") {
    // loom merges the checked commit by SHA: the record names the stage branch that points at it.
    const head = /^[0-9a-f]{40}$/.test(String(body["head"]))
      ? ([...fake.refs].find(([name, sha]) => sha === body["head"] && name.startsWith("loom/"))?.[0] ??
        String(body["head"]))
      : String(body["head"]);
    const base = String(body["base"]);
    const answers = fake.mergeAnswers.get(head) ?? [];
    const status = answers.shift() ?? 201;
    fake.merges.push({ head, base, status });
    if (status === 409) return [409, { message: "Merge conflict" }];
    if (status === 204) return [204];
    const sha = nextSha();
    const parents = [
      fake.refs.get(base),
      /^[0-9a-f]{40}$/.test(String(body["head"])) ? body["head"] : fake.refs.get(head),
    ];
    fake.refs.set(base, sha);
    // GitHub answers with the merge commit: its first parent is the base's head it merged onto.
    return [
      201,
      {
        sha,
        commit: { message: body["commit_message"] },
        parents: parents.map((p) => ({ sha: p })),
        ...(fake.mergeFiles === null ? {} : { files: fake.mergeFiles }),
      },
    ];
  }
  if (method === "GET" && (m = /^\/compare\/([^.]+)\.\.\.(.+)$/.exec(rest))) {
    return [
      200,
      {
        status: fake.compare(m[1] ?? "", m[2] ?? ""),
        ahead_by: 1,
        behind_by: 0,
        ...(fake.compareFiles === null ? {} : { files: fake.compareFiles }),
      },
    ];
  }
  return unhandled(fake, method, path);
}

function unhandled(fake: FakeGitHub, method: string, path: string): Reply {
  fake.unhandled.push(`${method} ${path}`);
  return [501, { message: "not in the fake" }];
}

function workflowRun(id: number, key: string): Json {
  return {
    id,
    name: "loom stage",
    display_title: `loom ${key}`,
    status: "queued",
    conclusion: null,
    html_url: `https://github.com/${REPO.fullName}/actions/runs/${id}`,
    event: "workflow_dispatch",
    head_branch: REPO.defaultBranch,
  };
}

/** A stand-in for git's blob SHA: stable per text. */
/**
 * The blob SHA of `path` at the pull request's head (`feature/plan`): its text there, else the text
 * a test last gave the path (a head the test did not describe has the file as it was), else none.
 */
function pullFileSha(fake: FakeGitHub, path: string): string {
  const head = fake.refs.get("feature/plan");
  let text = head === undefined ? undefined : fake.files.get(`${head}:${path}`);
  if (text === undefined) for (const [key, value] of fake.files) if (key.endsWith(`:${path}`)) text = value;
  return text === undefined ? nextSha() : blobShaOf(text);
}

export function blobShaOf(text: string): string {
  let hash = 0;
  for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash.toString(16).padStart(8, "0").repeat(5);
}
