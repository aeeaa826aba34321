import { spawn } from "node:child_process";
import path from "node:path";
import type { Core } from "./create-core.ts";
import type { Reply } from "./route-reply.ts";
import { isShutOut } from "./fork-repo.ts";
import type { Caller } from "./caller-of.ts";
import { checkGitAccess } from "./check-access.ts";

/** `/{owner}/{repo}.git/…`: git's smart HTTP protocol, like `https://github.com/{owner}/{repo}.git`. */
export const GIT_PATH = /^\/([^/]+)\/([^/]+?)\.git(\/.*)$/;

type CgiRequest = {
  method: string;
  url: URL;
  body: Buffer;
  headers: Record<string, string | undefined>;
  caller: Caller;
};

function runBackend(projectRoot: string, pathInfo: string, request: CgiRequest): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["http-backend"], {
      env: {
        ...process.env,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: pathInfo,
        REQUEST_METHOD: request.method,
        QUERY_STRING: request.url.search.replace(/^\?/, ""),
        CONTENT_TYPE: request.headers["content-type"] ?? "",
        CONTENT_LENGTH: String(request.body.length),
        HTTP_CONTENT_ENCODING: request.headers["content-encoding"] ?? "",
        GIT_PROTOCOL: request.headers["git-protocol"] ?? "",
        // A REMOTE_USER turns receive-pack (push) on, as an authenticated user on GitHub.
        REMOTE_USER: request.caller.login,
        REMOTE_ADDR: "127.0.0.1",
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", (error) => reject(new Error("git http-backend failed to start", { cause: error })));
    child.stdin.on("error", (error) => err.push(Buffer.from(String(error))));
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`git http-backend exited ${code}: ${Buffer.concat(err).toString("utf8")}`));
    });
    child.stdin.end(request.body);
  });
}

function parseCgi(output: Buffer): Reply {
  const split = output.indexOf("\r\n\r\n");
  const head = output.subarray(0, split).toString("latin1");
  const headers: Record<string, string> = {};
  let status = 200;
  for (const line of head.split("\r\n")) {
    const at = line.indexOf(":");
    const name = line.slice(0, at).trim().toLowerCase();
    const value = line.slice(at + 1).trim();
    if (name === "status") status = Number(value.split(" ")[0]);
    else if (name) headers[name] = value;
  }
  return { status, headers, raw: output.subarray(split + 4) };
}

/**
 * Serves clone, fetch and push with the real `git http-backend` over the bare repositories, to
 * callers allowed to (`checkGitAccess`: contents read to fetch, write to push). A push moves
 * branches like any other: open pull requests on a pushed branch get `synchronize`.
 */
export async function serveGit(core: Core, request: CgiRequest): Promise<Reply | null> {
  const match = GIT_PATH.exec(request.url.pathname);
  if (!match) return null;
  const { login } = request.caller;
  const repo = core.findRepo(match[1] ?? "", match[2] ?? "");
  if (!repo || isShutOut(repo, login, { botLogin: core.botLogin, appSlug: core.json.appSlug }))
    return { status: 404, raw: Buffer.from("Repository not found.\n") };
  const pushing = (match[3] ?? "").endsWith("/git-receive-pack");
  const wantsPush = pushing || request.url.searchParams.get("service") === "git-receive-pack";
  const refused = checkGitAccess(core, request.caller, repo, wantsPush);
  if (refused) return refused;
  const before = pushing ? await repo.git.listBranches() : null;
  const pathInfo = `/${path.basename(repo.git.dir)}${match[3] ?? ""}`;
  const reply = parseCgi(await runBackend(path.dirname(repo.git.dir), pathInfo, request));
  if (before) {
    repo.git.forgetRefs();
    const after = await repo.git.listBranches();
    for (const [branch, sha] of after) {
      const old = before.get(branch);
      if (old !== sha) await core.announcePush(repo, branch, old ?? "0".repeat(40), sha, login);
    }
  }
  return reply;
}
