import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import {
  CheckRunDelivery,
  CheckSuiteDelivery,
  IssueCommentDelivery,
  isResultCheckRun,
  PullRequestDelivery,
  readRepo,
  ResultCheckRunDelivery,
  readTime,
  WorkflowRunDelivery,
} from "../../app/engine/webhook-fields.ts";
import { exampleOf, resultCheckRunPayload } from "../support/webhook-payloads.ts";

/*
 * The webhook fields loom reads, checked at the boundary: every example GitHub publishes of the
 * deliveries loom acts on is taken (an App's deliveries always name the installation: examples
 * without one get it), and what a payload may leave out has the value loom's handlers expect.
 */

type Json = Record<string, unknown>;
const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples/api.github.com/index.json") as {
  name: string;
  examples: Json[];
}[];

const schemas = {
  pull_request: PullRequestDelivery,
  issue_comment: IssueCommentDelivery,
  check_run: CheckRunDelivery,
  check_suite: CheckSuiteDelivery,
  workflow_run: WorkflowRunDelivery,
} as const;

/** The fields loom's handlers read of a delivery `name`, beyond the repository's. */
function readFields(name: string, payload: Json): unknown {
  const at = (value: unknown, ...path: string[]): unknown =>
    path.reduce<unknown>((node, key) => (node as Json | null | undefined)?.[key], value);
  const numbers = (list: unknown) => (list as { number: number }[] | undefined)?.map((item) => item.number);
  const common = { action: payload["action"], sender: at(payload, "sender", "login") };
  switch (name) {
    case "pull_request":
      return {
        ...common,
        label: at(payload, "label", "name"),
        number: at(payload, "pull_request", "number"),
        author: at(payload, "pull_request", "user", "login"),
        labels: (at(payload, "pull_request", "labels") as { name: string }[]).map((label) => label.name),
        head: [at(payload, "pull_request", "head", "ref"), at(payload, "pull_request", "head", "sha")],
        headRepo: at(payload, "pull_request", "head", "repo", "full_name"),
        base: at(payload, "pull_request", "base", "ref"),
      };
    case "issue_comment":
      return {
        ...common,
        issue: at(payload, "issue", "number"),
        isPull: at(payload, "issue", "pull_request") !== undefined,
        comment: [
          at(payload, "comment", "id"),
          at(payload, "comment", "body"),
          at(payload, "comment", "created_at"),
        ],
      };
    case "check_run":
      return {
        ...common,
        run: [
          at(payload, "check_run", "id"),
          at(payload, "check_run", "name"),
          at(payload, "check_run", "head_sha"),
        ],
        pulls: numbers(at(payload, "check_run", "pull_requests")),
        requested: at(payload, "requested_action", "identifier"),
      };
    case "check_suite":
      return {
        ...common,
        sha: at(payload, "check_suite", "head_sha"),
        pulls: numbers(at(payload, "check_suite", "pull_requests")),
      };
    default:
      return {
        ...common,
        run: [
          at(payload, "workflow_run", "id"),
          at(payload, "workflow_run", "status"),
          at(payload, "workflow_run", "conclusion"),
        ],
      };
  }
}

function withInstallation(example: Json): Json {
  return "installation" in example ? example : { ...example, installation: { id: 77 } };
}

test("every published example of the deliveries loom acts on is read, with the repository and installation it names", () => {
  for (const [name, schema] of Object.entries(schemas)) {
    const group = examples.find((entry) => entry.name === name)?.examples ?? [];
    assert.ok(group.length > 0, name);
    for (const example of group.map(withInstallation)) {
      const parsed = schema.safeParse(example);
      assert.ok(parsed.success, `${name}.${String(example["action"])}: ${parsed.error?.message}`);
      const repository = example["repository"] as {
        name: string;
        owner: { login: string };
        default_branch: string;
      };
      assert.deepEqual(
        readFields(name, parsed.data as Json),
        readFields(name, example),
        `${name}: the fields loom reads`,
      );
      assert.deepEqual(readRepo(parsed.data), {
        owner: repository.owner.login,
        repo: repository.name,
        installationId: (example["installation"] as { id: number }).id,
        defaultBranch: repository.default_branch,
      });
    }
  }
});

test("a delivery without an installation is not read (loom cannot act for it)", () => {
  const example = exampleOf("pull_request", "opened");
  delete example["installation"];
  assert.equal(PullRequestDelivery.safeParse(example).success, false);
});

test("what a payload may leave out reads as loom's handlers expect it", () => {
  const pull = withInstallation(exampleOf("pull_request", "synchronize"));
  const repository = { ...(pull["repository"] as Json) };
  delete repository["default_branch"];
  const pr = { ...(pull["pull_request"] as Json) };
  delete pr["labels"];
  delete pr["updated_at"];
  pr["merged"] = null;
  const read = PullRequestDelivery.parse({ ...pull, repository, pull_request: pr });
  assert.equal(read.repository.default_branch, "main");
  assert.deepEqual(read.pull_request.labels, []);
  assert.equal(read.pull_request.updated_at, undefined);
  assert.equal(read.pull_request.merged, null);
  assert.equal(
    read.before,
    (pull as { before?: string }).before,
    "a synchronize names the head before the push",
  );
  const deleted = { ...pr, head: { ...(pr["head"] as Json), repo: null } };
  assert.equal(PullRequestDelivery.parse({ ...pull, pull_request: deleted }).pull_request.head.repo, null);

  const comment = withInstallation(exampleOf("issue_comment", "created"));
  const body = { ...(comment["comment"] as Json) };
  delete body["body"];
  assert.equal(IssueCommentDelivery.parse({ ...comment, comment: body }).comment.body, "");
  assert.equal(
    IssueCommentDelivery.parse({ ...comment, comment: { ...body, body: null } }).comment.body,
    null,
  );
  const noTime = { ...body };
  delete noTime["created_at"];
  assert.equal(IssueCommentDelivery.safeParse({ ...comment, comment: noTime }).success, false);

  const check = withInstallation(exampleOf("check_run", "requested_action"));
  const run = { ...(check["check_run"] as Json) };
  delete run["external_id"];
  delete run["pull_requests"];
  const checkRead = CheckRunDelivery.parse({ ...check, check_run: run, requested_action: null });
  assert.equal(checkRead.check_run.external_id, "");
  assert.deepEqual(checkRead.check_run.pull_requests, []);
  assert.equal(checkRead.requested_action, null);

  const suite = withInstallation(exampleOf("check_suite", "rerequested"));
  const suiteFields = { ...(suite["check_suite"] as Json) };
  delete suiteFields["pull_requests"];
  assert.deepEqual(
    CheckSuiteDelivery.parse({ ...suite, check_suite: suiteFields }).check_suite.pull_requests,
    [],
  );

  const workflow = withInstallation(exampleOf("workflow_run", "completed"));
  const runFields = { ...(workflow["workflow_run"] as Json) };
  delete runFields["html_url"];
  assert.equal(WorkflowRunDelivery.parse({ ...workflow, workflow_run: runFields }).workflow_run.html_url, "");
});

test("readTime: GitHub's ISO time as ms; absent or unreadable is undefined", () => {
  assert.equal(readTime("2026-11-27T10:00:00Z"), Date.UTC(2026, 10, 27, 10, 0, 0));
  assert.equal(readTime(undefined), undefined);
  assert.equal(readTime("not a time"), undefined);
});

test("a loom result is a check run of that name by GitHub Actions' app; its id, commit and text are read, an absent text as none", () => {
  const sha = "c".repeat(40);
  const result = resultCheckRunPayload({ id: 77, headSha: sha, text: '{"version":1}' });
  assert.equal(isResultCheckRun(result), true);
  const parsed = ResultCheckRunDelivery.safeParse(result);
  assert.ok(parsed.success);
  assert.deepEqual(
    [parsed.data.check_run.id, parsed.data.check_run.head_sha, parsed.data.check_run.output.text],
    [77, sha, '{"version":1}'],
  );
  const run = result["check_run"] as Json;
  const withoutText = { ...result, check_run: { ...run, output: { title: "t", summary: "s" } } };
  const noText = ResultCheckRunDelivery.safeParse(withoutText);
  assert.equal(noText.success && noText.data.check_run.output.text, null);
  // Another app's check run of that name (any token but a job's), or another name, is no loom result.
  const lookalike = resultCheckRunPayload({
    id: 78,
    headSha: sha,
    text: "",
    app: { id: 99, slug: "lookalike" },
  });
  const otherName = resultCheckRunPayload({ id: 79, headSha: sha, text: "", name: "loom results" });
  for (const payload of [lookalike, otherName]) {
    assert.equal(isResultCheckRun(payload), false);
    assert.equal(ResultCheckRunDelivery.safeParse(payload).success, false);
  }
  for (const payload of [
    { ...result, check_run: { ...run, app: null } },
    { ...result, check_run: undefined },
    {},
    null,
  ])
    assert.equal(isResultCheckRun(payload), false, JSON.stringify(payload)?.slice(0, 40));
});
