import assert from "node:assert/strict";
import { test } from "node:test";
import { mergeRepoConfig } from "../../src/config/merge-repo-config.ts";
import type { ConfigSource } from "../../src/config/merge-repo-config.ts";

const PATH = ".github/loom.yml";
const own = (config: unknown): ConfigSource => ({ owner: "acme", repo: "widgets", path: PATH, config });
const org = (config: unknown): ConfigSource => ({ owner: "acme", repo: ".github", path: PATH, config });

function merged(sources: ConfigSource[]) {
  const result = mergeRepoConfig(sources);
  assert.ok(result.ok, JSON.stringify(result));
  return result.config;
}

function problems(sources: ConfigSource[]): string[] {
  const result = mergeRepoConfig(sources);
  assert.ok(!result.ok, "refused");
  return result.problems.map((p) => p.message);
}

test("no file anywhere gives every default", () => {
  const config = merged([own(null), org(null)]);
  assert.equal(config.max_parallel, 4);
  assert.equal(config.label_prefix, "loom");
});

test("the repository's own file wins key by key over what it extends; retry merges field by field", () => {
  const config = merged([
    own({ max_parallel: 2, retry: { max_attempts: 5 } }),
    org({ max_parallel: 8, minimum_role: "maintain", retry: { max_attempts: 2, backoff_base_seconds: 10 } }),
  ]);
  assert.equal(config.max_parallel, 2);
  assert.equal(config.minimum_role, "maintain");
  assert.deepEqual(config.retry, { max_attempts: 5, backoff_base_seconds: 10, backoff_cap_seconds: 300 });
});

test("budget merges field by field: the organisation's plan budget stays beside the repository's stage estimate", () => {
  const config = merged([own({ budget: { stage_estimate_usd: 3 } }), org({ budget: { plan_usd: 40 } })]);
  assert.deepEqual(config.budget, { plan_usd: 40, stage_estimate_usd: 3 });
});

test("the owner's .github repository gives the defaults of a repository that has no file", () => {
  assert.equal(merged([own(null), org({ label_prefix: "acme-loom" })]).label_prefix, "acme-loom");
});

test("a chain of _extends applies nearest first", () => {
  const base: ConfigSource = {
    owner: "acme",
    repo: "base",
    path: "loom/base.yml",
    config: { max_parallel: 9, delete_branches: false },
  };
  const config = merged([own({}), org({ max_parallel: 3 }), base]);
  assert.equal(config.max_parallel, 3);
  assert.equal(config.delete_branches, false);
});

test("a mistake in an extended file is refused and names that file", () => {
  assert.deepEqual(problems([own({ max_parallel: 2 }), org({ max_paralel: 3 })]), [
    'from acme/.github:.github/loom.yml: (file): Unrecognized key: "max_paralel"',
  ]);
});

test("a mistake in the repository's own file is refused without a file name (the check run names it)", () => {
  assert.deepEqual(problems([own({ minimum_role: "triage" })]).length, 1);
  assert.match(problems([own({ minimum_role: "triage" })])[0] ?? "", /^minimum_role: /);
});

test("an _extends naming a file loom cannot read is refused, never ignored", () => {
  assert.deepEqual(problems([own({ max_parallel: 2 }), org(null)]), [
    "_extends names acme/.github:.github/loom.yml, which loom cannot read (it does not exist, or the App is not installed on acme/.github)",
  ]);
});

test("session caps set anywhere but the repository's own file are refused: the stage job could not apply them", () => {
  assert.match(
    problems([own({}), org({ session: { max_budget_usd: 5 } })])[0] ?? "",
    /^from acme\/\.github:\.github\/loom\.yml: session: set it in this repository's own \.github\/loom\.yml/,
  );
  assert.equal(problems([own(null), org({ session: { max_turns: 10 } })]).length, 1);
  assert.deepEqual(merged([own({ session: { max_turns: 10 } }), org({ max_parallel: 2 })]).session, {
    max_turns: 10,
  });
});

test("_extends is accepted in the file itself (the action reads the repository's own file as it is)", () => {
  assert.equal(merged([own({ _extends: ".github", max_parallel: 2 })]).max_parallel, 2);
});
