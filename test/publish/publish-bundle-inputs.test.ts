import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishBundle, type PublishBundleInput } from "../../action/src/publish/publish-bundle.ts";
import type { BundleManifest, CommitSecret, PublishResult } from "../../src/artifacts/publish-result.ts";
import { BRANCH, PLAN_ID, PLAN_PATH, STAGE_ID } from "./git-fixture.ts";

// What publish refuses from its inputs and the run job's manifest alone, before it fetches
// anything: no repository is needed, so `cwd` is an empty folder (where a fetch fails).

const empty = mkdtempSync(join(tmpdir(), "loom-publish-inputs-"));
after(() => rmSync(empty, { recursive: true, force: true }));

const SHA = "1".repeat(40);
const manifest = (change: Partial<BundleManifest> = {}): string =>
  JSON.stringify({
    version: 1,
    plan_id: PLAN_ID,
    stage_id: STAGE_ID,
    attempt: 1,
    branch: BRANCH,
    base_sha: SHA,
    head_sha: SHA,
    bundle: null,
    ...change,
  } satisfies BundleManifest);

async function publishWith(
  inputs: Partial<PublishBundleInput["inputs"]> = {},
  manifestText: string | Error = manifest(),
): Promise<PublishResult> {
  return publishBundle({
    cwd: empty,
    bundleDir: empty,
    manifestText,
    inputs: { plan_path: PLAN_PATH, plan_id: PLAN_ID, stage_id: STAGE_ID, branch: BRANCH, ...inputs },
    knownSecrets: [],
  });
}

/** The one refusal publish answered, checked to be of `rule`. */
function refusalOf(result: PublishResult, rule: string): { detail: string; path?: string } {
  assert.equal(result.ok, false);
  assert.equal(result.pushed_sha, undefined);
  assert.equal(result.refusals.length, 1, JSON.stringify(result.refusals));
  assert.equal(result.refusals[0]?.rule, rule, JSON.stringify(result.refusals));
  return result.refusals[0] ?? { detail: "" };
}

/** Inputs that pass the name checks reach the fetch, which fails in the empty folder. */
async function assertNamesAccepted(inputs: Partial<PublishBundleInput["inputs"]>): Promise<void> {
  const plan = inputs.plan_id ?? PLAN_ID;
  const stage = inputs.stage_id ?? STAGE_ID;
  const branch = inputs.branch ?? BRANCH;
  const result = await publishWith(inputs, manifest({ plan_id: plan, stage_id: stage, branch }));
  assert.equal(refusalOf(result, "not-fast-forward").detail, "could not fetch the branches of origin");
}

describe("publish: the plan id, stage id and branch inputs", () => {
  const id128 = `a${"b".repeat(127)}`;
  const accepted: [string, Partial<PublishBundleInput["inputs"]>][] = [
    [
      "ids of letters, digits, '.', '_' and '-'",
      { plan_id: "_P.l-1", branch: `loom/pr-7/_P.l-1/${STAGE_ID}` },
    ],
    ["a 128-character id", { stage_id: id128, branch: `loom/pr-7/${PLAN_ID}/${id128}` }],
    ["loom 0.2's loom/<plan-id>/<stage-id>", { branch: `loom/${PLAN_ID}/${STAGE_ID}` }],
    ["a ten-digit pull request number", { branch: `loom/pr-1234567890/${PLAN_ID}/${STAGE_ID}` }],
  ];
  for (const [name, inputs] of accepted) {
    it(`accepts ${name}`, async () => assertNamesAccepted(inputs));
  }

  const refused: [string, Partial<PublishBundleInput["inputs"]>][] = [
    ["a plan id starting with '-'", { plan_id: "-x", branch: `loom/pr-7/-x/${STAGE_ID}` }],
    ["a stage id starting with '.'", { stage_id: ".x", branch: `loom/pr-7/${PLAN_ID}/.x` }],
    ["a 129-character id", { stage_id: `${id128}c`, branch: `loom/pr-7/${PLAN_ID}/${id128}c` }],
    ["an id with '..'", { plan_id: "a..b", branch: `loom/pr-7/a..b/${STAGE_ID}` }],
    [
      "an id git refuses in a branch name",
      { plan_id: "demo.lock", branch: `loom/pr-7/demo.lock/${STAGE_ID}` },
    ],
    ["an eleven-digit pull request number", { branch: `loom/pr-12345678901/${PLAN_ID}/${STAGE_ID}` }],
    ["a prefix before loom/", { branch: `x/loom/pr-7/${PLAN_ID}/${STAGE_ID}` }],
    ["another stage of the same length", { branch: `loom/pr-7/${PLAN_ID}/build-xyz` }],
    ["loom 0.2's form for another stage", { branch: `loom/${PLAN_ID}/other` }],
  ];
  for (const [name, inputs] of refused) {
    it(`refuses ${name}, naming the branch it expects and the one it got`, async () => {
      const plan = inputs.plan_id ?? PLAN_ID;
      const stage = inputs.stage_id ?? STAGE_ID;
      const { detail } = refusalOf(await publishWith(inputs), "branch-name");
      assert.equal(
        detail,
        `the branch must be "loom/pr-<n>/${plan}/${stage}" built from valid ids; got ${JSON.stringify(inputs.branch ?? BRANCH)}`,
      );
    });
  }
});

describe("publish: the run job's manifest", () => {
  it("refuses a bundle artifact that could not be downloaded, saying why", async () => {
    const { detail } = refusalOf(
      await publishWith({}, new Error("no artifact loom-bundle")),
      "bundle-invalid",
    );
    assert.equal(detail, "the loom-bundle artifact could not be read: no artifact loom-bundle");
  });

  for (const [name, text] of [
    ["not JSON", "{"],
    ["not a manifest", JSON.stringify({ version: 1 })],
  ] as const) {
    it(`refuses a manifest that is ${name}`, async () => {
      const { detail } = refusalOf(await publishWith({}, text), "bundle-invalid");
      assert.equal(detail, "loom-bundle.json is not a valid bundle manifest");
    });
  }

  for (const [name, change] of [
    ["another plan", { plan_id: "PLAN-other" }],
    ["another stage", { stage_id: "other" }],
    ["another branch", { branch: `loom/pr-8/${PLAN_ID}/${STAGE_ID}` }],
  ] as const) {
    it(`refuses a manifest for ${name}`, async () => {
      const { detail } = refusalOf(await publishWith({}, manifest(change)), "bundle-invalid");
      assert.equal(detail, `the bundle is for ${change.branch ?? BRANCH}, not ${BRANCH}`);
    });
  }

  it("goes on to fetch when the run job found none of its secrets", async () => {
    await assertNamesAccepted({});
    const result = await publishWith({}, manifest({ secrets: [] }));
    assert.equal(refusalOf(result, "not-fast-forward").detail, "could not fetch the branches of origin");
  });

  it("refuses the commits the run job kept back, one refusal per secret found, never the value", async () => {
    const commit = "abcdef0123456789".repeat(2) + "abcdef01";
    const secrets: CommitSecret[] = [
      { commit, where: "content", path: "notes.txt", encoding: "plain" },
      { commit, where: "content", encoding: "base64" },
      { commit, where: "path", encoding: "hex" },
      { commit, where: "commit", encoding: "plain" },
    ];
    const result = await publishWith({}, manifest({ secrets, head_sha: commit }));
    const after =
      "the run job did not upload these commits; revoke and replace the secret, then retry the stage (the value is not shown)";
    const what = "one of the run job's secrets (the model key or a token it holds)";
    assert.deepEqual(result, {
      version: 1,
      ok: false,
      plan_id: PLAN_ID,
      stage_id: STAGE_ID,
      branch: BRANCH,
      commits_checked: 0,
      head_sha: commit,
      refusals: [
        {
          rule: "secret",
          path: "notes.txt",
          detail: `commit abcdef012345 writes ${what} into notes.txt; ${after}`,
        },
        {
          rule: "secret",
          path: undefined,
          detail: `commit abcdef012345 writes ${what} base64-encoded into a file; ${after}`,
        },
        {
          rule: "secret",
          path: "(a file name)",
          detail: `commit abcdef012345 adds a file whose name holds ${what} hex-encoded; ${after}`,
        },
        { rule: "secret", detail: `the message or author of commit abcdef012345 holds ${what}; ${after}` },
      ],
    });
  });
});
