import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { pullRequestPayload } from "../support/webhook-payloads.ts";
import { PLAN_PATH, startHarness } from "./loom-harness.ts";
import type { Harness } from "./loom-harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const DIAMOND_LABELS = [
  "loom:hold",
  ...["a", "b", "c", "d"].flatMap((id) => [`loom:skip:${id}`, `loom:block:${id}`]),
];

const labelRequests = (harness: Harness) =>
  harness.gh.requests.filter((r) => r.method === "POST" && r.path.endsWith("/labels")).length;

test("with stage_labels, a new plan gets its labels created once each, after its first dispatch; a push asks for none", async () => {
  h = await startHarness();
  h.fake.files.set("main:.github/loom.yml", "stage_labels: true\n");
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  assert.deepEqual(
    [...h.fake.labels.values()].map((l) => l.name),
    DIAMOND_LABELS,
  );
  assert.deepEqual(h.fake.labels.get("loom:skip:b"), {
    name: "loom:skip:b",
    color: "c5def5",
    description: "loom: skip stage b — its dependents treat it as done",
  });
  const firstLabel = h.gh.requests.findIndex((r) => r.path.endsWith("/labels"));
  const dispatch = h.gh.requests.findIndex((r) => r.path.endsWith("/dispatches"));
  assert.ok(dispatch >= 0 && dispatch < firstLabel, "the dispatch does not wait for labels");
  assert.equal(labelRequests(h), DIAMOND_LABELS.length);

  const pushed = "f".repeat(40);
  h.fake.refs.set("feature/plan", pushed);
  h.fake.files.set(`${pushed}:${PLAN_PATH}`, h.fake.files.get(`${h.headSha}:${PLAN_PATH}`) ?? "");
  await h.receive("pull_request", pullRequestPayload("synchronize", { number: 1, headSha: pushed }));
  assert.equal(labelRequests(h), DIAMOND_LABELS.length, "a push asks for no label again");
  await h.finish();
  h = undefined;
});

test("a label the repository already has (422 already_exists, any letter case) counts as made", async () => {
  h = await startHarness();
  h.fake.files.set("main:.github/loom.yml", "stage_labels: true\n");
  h.fake.labels.set("loom:hold", { name: "LOOM:HOLD", color: "000000", description: null });
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  assert.equal(h.fake.labels.get("loom:hold")?.color, "000000", "an existing label is left as it is");
  assert.equal(h.fake.labels.size, DIAMOND_LABELS.length, "and the others are still made");
  await h.finish();
  h = undefined;
});

test("by default only the hold label is created: per-stage labels cost two requests per stage and stay in the repository", async () => {
  h = await startHarness();
  await h.receive("pull_request", pullRequestPayload("opened", { number: 1, headSha: h.headSha }));
  assert.deepEqual(
    [...h.fake.labels.values()].map((l) => l.name),
    ["loom:hold"],
  );
  assert.equal(labelRequests(h), 1);
  await h.finish();
  h = undefined;
});
