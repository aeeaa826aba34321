import type { CheckRunAction, CheckRunRecord } from "./emulator-state.ts";
import { takeId } from "./emulator-state.ts";
import { findOrCreateCheckSuite } from "./check-suites.ts";
import { JOB_LOGIN } from "./caller-of.ts";
import {
  fail,
  notFound,
  ok,
  paginate,
  readString,
  type Reply,
  type RouteRequest,
  type Routes,
} from "./route-reply.ts";

/**
 * Check runs belong to the app that created them, and only that app may update them (GitHub:
 * 403). A job token's runs belong to the GitHub Actions app. (Which tokens may write check runs
 * at all, `checks: write`, is `route-access.ts`'s.)
 */
function refuseOtherApp(request: RouteRequest, run: CheckRunRecord): Reply | null {
  if ((run.app === JOB_LOGIN) === (request.login === JOB_LOGIN)) return null;
  return fail(
    403,
    "Invalid app_id `" +
      request.login +
      "` - check run can only be modified by the GitHub App that created it.",
  );
}

/** Check runs: create, update, get, list by ref. Fires `check_run` created and completed. */

type Json = Record<string, unknown>;

function applyFields(run: CheckRunRecord, body: Json, now: number): void {
  const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
  if (typeof body["name"] === "string") run.name = body["name"];
  if ("external_id" in body) run.externalId = text(body["external_id"]);
  if ("details_url" in body) run.detailsUrl = text(body["details_url"]);
  if (typeof body["started_at"] === "string") run.startedAt = Date.parse(body["started_at"]);
  if (typeof body["status"] === "string") run.status = body["status"] as CheckRunRecord["status"];
  if (typeof body["conclusion"] === "string") {
    run.conclusion = body["conclusion"];
    run.status = "completed";
  }
  if (run.status === "completed")
    run.completedAt =
      typeof body["completed_at"] === "string" ? Date.parse(body["completed_at"]) : (run.completedAt ?? now);
  else {
    run.conclusion = null;
    run.completedAt = null;
  }
  const output = body["output"] as Json | undefined;
  if (output) {
    run.output = {
      title: text(output["title"]) ?? run.output.title,
      summary: text(output["summary"]) ?? run.output.summary,
      text: "text" in output ? text(output["text"]) : run.output.text,
      // Annotations append across updates, as on GitHub.
      annotationsCount:
        run.output.annotationsCount +
        (Array.isArray(output["annotations"]) ? output["annotations"].length : 0),
    };
  }
  if (Array.isArray(body["actions"])) run.actions = body["actions"] as CheckRunAction[];
}

function findRun(request: RouteRequest): CheckRunRecord | undefined {
  const id = Number(request.params["check_run_id"]);
  return request.core.state.checkRuns.find((r) => r.repo === request.repo.fullName && r.id === id);
}

export const checkRunRoutes: Routes = {
  "checks/create": async (request) => {
    const { core, repo, body } = request;
    const headSha = readString(body, "head_sha") ?? "";
    if (!(await repo.git.objectExists(headSha))) return fail(422, "No commit found for SHA: " + headSha);
    const suite = findOrCreateCheckSuite(core.state, repo, request.login, headSha, core.now());
    suite.updatedAt = core.now();
    const run: CheckRunRecord = {
      repo: repo.fullName,
      id: takeId(core.state),
      name: "",
      headSha,
      status: "queued",
      conclusion: null,
      externalId: null,
      detailsUrl: null,
      output: { title: null, summary: null, text: null, annotationsCount: 0 },
      actions: [],
      startedAt: core.now(),
      completedAt: null,
      app: request.login,
      checkSuiteId: suite.id,
    };
    applyFields(run, body, core.now());
    core.state.checkRuns.push(run);
    await core.emitCheckRun(repo, run, "created", request.login);
    if (run.status === "completed") await core.emitCheckRun(repo, run, "completed", request.login);
    return ok(await core.checkRunJson(repo, run), 201);
  },
  "checks/update": async (request) => {
    const { core, repo } = request;
    const run = findRun(request);
    if (!run) return notFound();
    const refused = refuseOtherApp(request, run);
    if (refused) return refused;
    const wasCompleted = run.status === "completed";
    applyFields(run, request.body, core.now());
    const suite = core.state.checkSuites.find((s) => s.id === run.checkSuiteId);
    if (suite) suite.updatedAt = core.now();
    if (!wasCompleted && run.status === "completed")
      await core.emitCheckRun(repo, run, "completed", request.login);
    return ok(await core.checkRunJson(repo, run));
  },
  "checks/get": async (request) => {
    const run = findRun(request);
    return run ? ok(await request.core.checkRunJson(request.repo, run)) : notFound();
  },
  "checks/list-for-ref": async (request) => {
    const { core, repo, query } = request;
    const sha = await repo.git.resolve(request.params["ref"] ?? "");
    if (!sha) return fail(422, `No commit found for SHA: ${request.params["ref"] ?? ""}`);
    const name = query.get("check_name");
    const status = query.get("status");
    let runs = core.state.checkRuns
      .filter((r) => r.repo === repo.fullName && r.headSha === sha)
      .filter((r) => name === null || r.name === name)
      .filter((r) => status === null || r.status === status)
      .sort((a, b) => b.id - a.id);
    if ((query.get("filter") ?? "latest") === "latest") {
      const seen = new Set<string>();
      runs = runs.filter((r) => !seen.has(r.name) && Boolean(seen.add(r.name)));
    }
    const page = paginate(request, runs);
    const checkRuns = await Promise.all(page.items.map((r) => core.checkRunJson(repo, r)));
    return { status: 200, body: { total_count: runs.length, check_runs: checkRuns }, headers: page.headers };
  },
};
