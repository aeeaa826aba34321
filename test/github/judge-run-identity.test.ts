import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DISPATCH_SKEW_MS,
  hasRunKey,
  judgeRunIdentity,
  RunIdentity,
} from "../../app/github/judge-run-identity.ts";
import type { ExpectedDispatch } from "../../app/github/judge-run-identity.ts";

/*
 * Which run loom takes for the one it dispatched when GitHub gave it no run id: only its own
 * `workflow_dispatch` run of the caller workflow on the default branch, after the dispatch, whose
 * title carries the key. Each refusal says why, for the log a person reads.
 */

const DISPATCHED_AT = Date.UTC(2026, 10, 21, 12, 0, 0);
const KEY = "bbbbbbbb:a:1";
const expected: ExpectedDispatch = {
  workflowFile: "loom.yml",
  defaultBranch: "main",
  botLogin: "loom[bot]",
  key: KEY,
  dispatchedAt: DISPATCHED_AT,
};

function run(fields: Record<string, unknown> = {}): RunIdentity {
  return RunIdentity.parse({
    id: 5,
    name: "loom",
    display_title: `loom a [${KEY}]`,
    event: "workflow_dispatch",
    path: ".github/workflows/loom.yml",
    head_branch: "main",
    created_at: new Date(DISPATCHED_AT + 1_000).toISOString(),
    actor: { login: "loom[bot]" },
    triggering_actor: { login: "loom[bot]" },
    ...fields,
  });
}

describe("judgeRunIdentity", () => {
  it("takes loom's own dispatched run", () => {
    assert.equal(judgeRunIdentity(run(), expected), null);
  });

  it("finds the key in the workflow's name when the title lacks it", () => {
    assert.equal(
      judgeRunIdentity(run({ display_title: "something else", name: `loom ${KEY}` }), expected),
      null,
    );
    assert.equal(
      judgeRunIdentity(run({ display_title: "something else", name: null }), expected),
      "its title does not carry the dispatch key",
    );
    assert.equal(
      judgeRunIdentity(run({ display_title: undefined, name: undefined }), expected),
      "its title does not carry the dispatch key",
    );
  });

  const refusals: { what: string; fields: Record<string, unknown>; why: string }[] = [
    { what: "a push run", fields: { event: "push" }, why: "it was started by push" },
    {
      what: "a run of no known event",
      fields: { event: undefined },
      why: "it was started by an unknown event",
    },
    {
      what: "a run of another workflow",
      fields: { path: ".github/workflows/evil.yml" },
      why: "it is a run of .github/workflows/evil.yml, not loom.yml",
    },
    {
      what: "a run of an unknown workflow",
      fields: { path: undefined },
      why: "it is a run of an unknown workflow, not loom.yml",
    },
    {
      what: "a run on another branch",
      fields: { head_branch: "mallory" },
      why: "it ran on mallory, not main",
    },
    { what: "a run on no branch", fields: { head_branch: null }, why: "it ran on no branch, not main" },
    {
      what: "a run someone else started",
      fields: { actor: { login: "mallory" }, triggering_actor: null },
      why: "it was started by mallory, not loom",
    },
    {
      what: "a run someone else re-ran",
      fields: { triggering_actor: { login: "mallory" } },
      why: "it was started by mallory, not loom",
    },
    {
      what: "a run whose actor loom is not, though it triggered it",
      fields: { actor: { login: "mallory" } },
      why: "it was started by loom[bot], not loom",
    },
    {
      what: "a run of nobody known",
      fields: { actor: null, triggering_actor: null },
      why: "it was started by someone unknown, not loom",
    },
    {
      what: "a run older than the dispatch beyond the clock skew",
      fields: { created_at: new Date(DISPATCHED_AT - DISPATCH_SKEW_MS - 1).toISOString() },
      why: "it was created before loom dispatched",
    },
    {
      what: "a run without a creation time",
      fields: { created_at: undefined },
      why: "it was created before loom dispatched",
    },
    {
      what: "a run with an unreadable creation time",
      fields: { created_at: "yesterday" },
      why: "it was created before loom dispatched",
    },
  ];
  for (const c of refusals)
    it(`refuses ${c.what}`, () => {
      assert.equal(judgeRunIdentity(run(c.fields), expected), c.why);
    });

  it("accepts a run created within the clock skew before the dispatch, and a path with a ref", () => {
    assert.equal(
      judgeRunIdentity(
        run({ created_at: new Date(DISPATCHED_AT - DISPATCH_SKEW_MS).toISOString() }),
        expected,
      ),
      null,
    );
    assert.equal(
      judgeRunIdentity(run({ path: ".github/workflows/loom.yml@refs/heads/main" }), expected),
      null,
    );
  });

  it("a run loom did not see started by a known bot is never loom's when loom does not know its own login", () => {
    assert.equal(
      judgeRunIdentity(run(), { ...expected, botLogin: null }),
      "it was started by loom[bot], not loom",
    );
  });

  it("a run loom started, whose triggering actor GitHub left out, is loom's", () => {
    assert.equal(judgeRunIdentity(run({ triggering_actor: undefined }), expected), null);
  });
});

describe("hasRunKey", () => {
  const cases: { title: string; key: string; want: boolean }[] = [
    { title: "k:a:1", key: "k:a:1", want: true },
    { title: "loom k:a:1", key: "k:a:1", want: true },
    { title: "k:a:1 loom", key: "k:a:1", want: true },
    { title: "ak:a:1", key: "k:a:1", want: false },
    { title: ":k:a:1", key: "k:a:1", want: false },
    { title: ".k:a:1", key: "k:a:1", want: false },
    { title: "/k:a:1", key: "k:a:1", want: false },
    { title: "-k:a:1", key: "k:a:1", want: false },
    { title: "k:a:1:", key: "k:a:1", want: false },
    { title: "k:a:1.", key: "k:a:1", want: false },
    { title: "k:a:1/", key: "k:a:1", want: false },
    { title: "k:a:1-", key: "k:a:1", want: false },
    { title: "k:a:1_", key: "k:a:1", want: false },
    { title: "k:a:10 then k:a:1", key: "k:a:1", want: true },
    { title: "k:a:1k:a:1", key: "k:a:1", want: false },
    { title: "", key: "k:a:1", want: false },
  ];
  for (const c of cases)
    it(`"${c.title}" ${c.want ? "carries" : "does not carry"} ${c.key}`, () => {
      assert.equal(hasRunKey(c.title, c.key), c.want);
    });
});
