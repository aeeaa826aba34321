import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createClient, statusOf, type Client } from "./emulator-fixture.ts";
import { findLabel } from "./repo-labels.ts";
import { startEmulator, type Emulator } from "./start-emulator.ts";

const repo = { owner: "acme", repo: "widgets" };

/** The status and GitHub's `errors[]` of a refused request. */
async function refusalOf(promise: Promise<unknown>): Promise<[number, unknown]> {
  try {
    await promise;
  } catch (error) {
    const e = error as { status: number; response?: { data?: { errors?: unknown } } };
    return [e.status, e.response?.data?.errors];
  }
  return [0, null];
}

describe("labels are repository objects, as on GitHub", () => {
  let emulator: Emulator;
  let octokit: Client;
  before(async () => {
    emulator = await startEmulator({ permissions: { alice: "write", tina: "triage" } });
    octokit = createClient(emulator);
    await emulator.as("alice").openPullRequest({ head: "feature", files: { "a.txt": "a\n" } });
  });
  after(async () => {
    await emulator.close();
  });

  it("creates a label (201), then refuses the same name in any letter case (422 already_exists)", async () => {
    const created = await octokit.rest.issues.createLabel({
      ...repo,
      name: "loom:hold",
      color: "FBCA04",
      description: "loom: start nothing new",
    });
    assert.equal(created.status, 201);
    assert.deepEqual(
      { name: created.data.name, color: created.data.color, description: created.data.description },
      { name: "loom:hold", color: "fbca04", description: "loom: start nothing new" },
    );
    assert.deepEqual(await refusalOf(octokit.rest.issues.createLabel({ ...repo, name: "LOOM:Hold" })), [
      422,
      [{ resource: "Label", code: "already_exists", field: "name" }],
    ]);
    assert.equal((await octokit.rest.issues.getLabel({ ...repo, name: "loom:hold" })).data.color, "fbca04");
    assert.equal((await statusOf(octokit.rest.issues.getLabel({ ...repo, name: "nope" })))?.status, 404);
    const listed = await octokit.rest.issues.listLabelsForRepo(repo);
    assert.deepEqual(
      listed.data.map((l) => l.name),
      ["loom:hold"],
    );
  });

  it("refuses names over 50 characters, descriptions over 100 and colours that are not six hex digits", async () => {
    const refused = (fields: { name: string; color?: string; description?: string }) =>
      refusalOf(octokit.rest.issues.createLabel({ ...repo, ...fields }));
    assert.deepEqual(await refused({ name: "x".repeat(51) }), [
      422,
      [{ resource: "Label", code: "invalid", field: "name" }],
    ]);
    assert.deepEqual(await refused({ name: "ok", color: "#ffffff" }), [
      422,
      [{ resource: "Label", code: "invalid", field: "color" }],
    ]);
    assert.deepEqual(await refused({ name: "ok", description: "d".repeat(101) }), [
      422,
      [{ resource: "Label", code: "invalid", field: "description" }],
    ]);
    assert.equal(findLabel(emulator.state, emulator.repo(), "ok"), undefined);
  });

  it("lets a person add only a label the repository has, as GitHub's label menu does", async () => {
    const tina = emulator.as("tina");
    await assert.rejects(tina.addLabel(1, "loom:skip:a"), /has no label loom:skip:a/);
    assert.deepEqual(emulator.state.pulls[0]?.labels, []);
    assert.throws(() => tina.createLabel("loom:skip:a"), /tina \(triage\) cannot create labels/);
    emulator.as("alice").createLabel("loom:skip:a");
    await tina.addLabel(1, "loom:skip:a");
    assert.deepEqual(emulator.state.pulls[0]?.labels, ["loom:skip:a"]);
    await assert.rejects(emulator.as("rita").addLabel(1, "loom:hold"), /rita \(read\) cannot label/);
    await tina.removeLabel(1, "loom:skip:a");
  });

  it("creates missing labels when they are added through the API (POST /issues/{n}/labels)", async () => {
    await octokit.rest.issues.addLabels({ ...repo, issue_number: 1, labels: ["loom:block:b"] });
    assert.equal(findLabel(emulator.state, emulator.repo(), "loom:block:b")?.color, "ededed");
    assert.deepEqual(emulator.state.pulls[0]?.labels, ["loom:block:b"]);
  });

  it("made only requests GitHub's OpenAPI description allows", () => {
    emulator.assertNoViolations();
  });
});
