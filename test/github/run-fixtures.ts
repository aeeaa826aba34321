import type { PublishResult } from "../../src/artifacts/publish-result.ts";
import type { StageResult } from "../../src/artifacts/stage-result.ts";
import type { GitHubMock } from "../support/github-mock.ts";
import { makeZip } from "./make-zip.ts";

/** Fixtures of a finished stage run of `octo/repo` (run 9): its results and its artifacts. */
export const SHA = "f".repeat(40);
/** Where GitHub redirects an artifact download (signed blob storage). */
export const BLOB = "https://results-receiver.actions.githubusercontent.com";

/** Stage `a`'s passing `loom-result.json`. */
export const RESULT: StageResult = {
  version: 1,
  plan_id: "PLAN-demo",
  stage_id: "a",
  attempt: 1,
  kind: "stage",
  outcome: "completed",
  reason: "all 3 acceptance checks passed",
  checks: [],
  commits: [{ sha: SHA, subject: "add a" }],
  head_sha: SHA,
  turns: 12,
  tokens: { input: 1, output: 2, cache_read: 3, cache_creation: 4 },
  cost_usd: 0.42,
  duration_ms: 60_000,
  context_percent: 30,
  deviations: [],
  permission_denials: [],
};

/** Stage `a`'s publish job pushed `pushedSha`. */
export function makePublished(pushedSha = SHA): PublishResult {
  return {
    version: 1,
    ok: true,
    plan_id: "PLAN-demo",
    stage_id: "a",
    branch: "loom/pr-7/PLAN-demo/a",
    pushed_sha: pushedSha,
    commits_checked: 1,
    refusals: [],
  };
}

/** An artifact as GitHub lists it (`GET …/runs/{id}/artifacts`). */
export function listedArtifact(id: number, name: string, fields: Record<string, unknown> = {}) {
  return {
    id,
    name,
    size_in_bytes: 200,
    created_at: "2026-11-21T12:00:00Z",
    expired: false,
    url: "u",
    archive_download_url: "d",
    ...fields,
  };
}

/** GitHub serves artifact `id` of octo/repo as `zip`: a 302 to blob storage, then the bytes. */
export function serveZip(mock: GitHubMock, id: number, zip: Buffer): void {
  mock.api
    .get(`/repos/octo/repo/actions/artifacts/${id}/zip`)
    .reply(302, "", { location: `${BLOB}/blob/${id}?sig=x` });
  mock.other(BLOB).get(`/blob/${id}`).query(true).reply(200, zip, { "content-type": "application/zip" });
}

/** GitHub serves artifact `id` of octo/repo as a zip of `files`. */
export function serveArtifact(mock: GitHubMock, id: number, files: Record<string, string>): void {
  serveZip(mock, id, makeZip(files));
}
