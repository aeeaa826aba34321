import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import { completeRun, startHarness } from "./loom-harness.ts";
import { passingResult } from "./stage-results.ts";
import type { Harness } from "./loom-harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const stagesDispatched = (harness: Harness) =>
  harness.fake.dispatches.map((d) => d.inputs["stage_id"]).sort();

test("loom:hold keeps a plan from dispatching until the label is removed", async () => {
  h = await startHarness();
  await h.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: h.headSha, labels: ["loom:hold"] }),
  );
  assert.deepEqual(stagesDispatched(h), []);
  await h.receive(
    "pull_request",
    pullRequestPayload("unlabeled", { number: 1, headSha: h.headSha, labels: [], label: "loom:hold" }),
  );
  assert.deepEqual(stagesDispatched(h), ["a"]);
  await h.finish();
  h = undefined;
});

test("loom:hold put on while a stage runs lets it finish and merge, and starts no dependent until it is removed", async () => {
  h = await startHarness();
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const [a] = h.fake.dispatches;
  assert.equal(a?.inputs["stage_id"], "a");
  await h.receive(
    "pull_request",
    pullRequestPayload("labeled", {
      number: 1,
      headSha: h.headSha,
      labels: ["loom:hold"],
      label: "loom:hold",
    }),
  );
  h.fake.refs.set("loom/pr-1/PLAN-diamond/a", passingResult("a").head_sha);
  await completeRun(h, a, passingResult("a"));
  assert.equal(h.fake.merges.length, 1, "the running stage finished and merged");
  assert.deepEqual(stagesDispatched(h), ["a"], "no dependent starts while held");
  await h.receive(
    "pull_request",
    pullRequestPayload("unlabeled", { number: 1, headSha: h.headSha, labels: [], label: "loom:hold" }),
  );
  assert.deepEqual(stagesDispatched(h), ["a", "b", "c"]);
  await h.finish();
  h = undefined;
});

test("loom:skip skips a stage on purpose so its dependents start; loom:block holds a stage back", async () => {
  h = await startHarness();
  await h.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: h.headSha, labels: ["loom:hold"] }),
  );
  const labels = ["loom:hold", "loom:skip:a", "loom:block:c"];
  await h.receive(
    "pull_request",
    pullRequestPayload("labeled", { number: 1, headSha: h.headSha, labels, label: "loom:block:c" }),
  );
  await h.receive(
    "pull_request",
    pullRequestPayload("unlabeled", {
      number: 1,
      headSha: h.headSha,
      labels: ["loom:skip:a", "loom:block:c"],
      label: "loom:hold",
    }),
  );
  assert.deepEqual(stagesDispatched(h), ["b"], "a is skipped, c is blocked, d waits for c");
  await h.finish();
  h = undefined;
});

test("labels changed by someone without write access are ignored", async () => {
  h = await startHarness();
  h.fake.roles.set("bob", "triage");
  await h.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: h.headSha, labels: ["loom:hold"] }),
  );
  await h.receive(
    "pull_request",
    pullRequestPayload("unlabeled", {
      number: 1,
      headSha: h.headSha,
      labels: [],
      label: "loom:hold",
      sender: { login: "bob" },
    }),
  );
  assert.deepEqual(stagesDispatched(h), []);
  await h.finish();
  h = undefined;
});

test("a label from someone without write access stays without effect when a writer changes another label", async () => {
  h = await startHarness();
  h.fake.roles.set("bob", "triage");
  await h.receive(
    "pull_request",
    pullRequestPayload("opened", { number: 1, headSha: h.headSha, labels: ["loom:hold"] }),
  );
  await h.receive(
    "pull_request",
    pullRequestPayload("labeled", {
      number: 1,
      headSha: h.headSha,
      labels: ["loom:hold", "loom:block:a"],
      label: "loom:block:a",
      sender: { login: "bob" },
    }),
  );
  await h.receive(
    "pull_request",
    pullRequestPayload("unlabeled", {
      number: 1,
      headSha: h.headSha,
      labels: ["loom:block:a"],
      label: "loom:hold",
    }),
  );
  assert.deepEqual(stagesDispatched(h), ["a"], "bob's block label does not count");
  await h.finish();
  h = undefined;
});

test("a label that is not loom's, added or removed, costs no GitHub request and changes nothing", async () => {
  h = await startHarness();
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  const before = h.gh.requests.length;
  for (const action of ["labeled", "unlabeled"] as const) {
    await h.receive(
      "pull_request",
      pullRequestPayload(action, {
        number: 1,
        headSha: h.headSha,
        labels: action === "labeled" ? ["bug"] : [],
        label: "bug",
      }),
    );
  }
  assert.deepEqual(
    h.gh.requests.slice(before).map((r) => `${r.method} ${r.path}`),
    [],
    "no permission read, no check-run or comment write",
  );
  assert.deepEqual(stagesDispatched(h), ["a"]);
  await h.finish();
  h = undefined;
});
