import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { createResultReporter } from "../../action/src/publish/create-result-reporter.ts";

/*
 * The publish job's reporter creates the `loom result` check run with the job token, on the
 * server the runner names (`GITHUB_API_URL`: github.com's API or a GHES `/api/v3`), as a
 * completed, neutral run: it reports, it never gates the pull request.
 */

type Seen = { method: string; url: string; auth: string; body: Record<string, unknown> };

const seen: Seen[] = [];
let status = 201;
const server = createServer((request: IncomingMessage, response) => {
  let text = "";
  request.on("data", (chunk: Buffer) => (text += chunk.toString()));
  request.on("end", () => {
    seen.push({
      method: request.method ?? "",
      url: request.url ?? "",
      auth: request.headers.authorization ?? "",
      body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>),
    });
    response.writeHead(status, { "content-type": "application/json" });
    response.end(
      status === 201
        ? JSON.stringify({ id: 1 })
        : JSON.stringify({ message: "Resource not accessible by integration" }),
    );
  });
});
let base = "";
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const CHECK = {
  name: "loom result",
  title: "a attempt 1: completed",
  summary: "Stage `a`…",
  text: '{"version":1}',
};

describe("the publish job's loom result reporter", () => {
  it("is none without the job token, the repository or the API URL: nothing is sent", () => {
    const env = { GITHUB_REPOSITORY: "acme/widgets", GITHUB_API_URL: base };
    assert.equal(createResultReporter(env, ""), undefined, "no token");
    assert.equal(createResultReporter({ GITHUB_API_URL: base }, "ghs_x"), undefined, "no repository");
    assert.equal(
      createResultReporter({ ...env, GITHUB_REPOSITORY: "widgets" }, "ghs_x"),
      undefined,
      "no owner/name",
    );
    assert.equal(createResultReporter({ ...env, GITHUB_REPOSITORY: "acme/" }, "ghs_x"), undefined, "no name");
    assert.equal(
      createResultReporter({ GITHUB_REPOSITORY: "acme/widgets" }, "ghs_x"),
      undefined,
      "no API URL",
    );
    assert.equal(seen.length, 0);
  });

  it("creates a completed, neutral check run on the commit, with the job token, on GitHub Enterprise Server's API path too", async () => {
    for (const [apiUrl, prefix] of [
      [base, ""],
      [`${base}/api/v3`, "/api/v3"],
    ] as const) {
      seen.length = 0;
      const report = createResultReporter(
        { GITHUB_REPOSITORY: "acme/widgets", GITHUB_API_URL: apiUrl },
        "ghs_job",
      );
      assert.ok(report);
      await report(CHECK, "c".repeat(40));
      assert.deepEqual(seen, [
        {
          method: "POST",
          url: `${prefix}/repos/acme/widgets/check-runs`,
          auth: "token ghs_job",
          body: {
            name: "loom result",
            head_sha: "c".repeat(40),
            status: "completed",
            conclusion: "neutral",
            output: { title: CHECK.title, summary: CHECK.summary, text: CHECK.text },
          },
        },
      ]);
    }
  });

  it("a refusal (a caller without checks: write) rejects, once: GitHub's answer, not a hiccup", async () => {
    seen.length = 0;
    status = 403;
    try {
      const report = createResultReporter(
        { GITHUB_REPOSITORY: "acme/widgets", GITHUB_API_URL: base },
        "ghs_job",
      );
      await assert.rejects(report!(CHECK, "c".repeat(40)), /Resource not accessible by integration/);
      assert.equal(seen.length, 1);
    } finally {
      status = 201;
    }
  });
});
