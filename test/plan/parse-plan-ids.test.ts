import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parsePlan } from "../../src/plan/parse-plan.ts";
import { HEADER, expectError, goodStage, planMarkdown } from "./plan-markdown.ts";

const plan = planMarkdown([...HEADER, ...goodStage("a")]);

/** The errors of a plan whose one stage has id `id` (its `id:` value at 9:11). */
const idErrors = (id: string): string[] => {
  const result = parsePlan("doc/plans/PLAN-test.md", planMarkdown([...HEADER, ...goodStage(id)]));
  return result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.message}`);
};

describe("a plan file name that cannot be part of a branch name is an error at 1:1", () => {
  const refs = "it contains a space, a control character or one of ~ ^ : ? * [ \\";
  const dots = 'it contains "..", "@{" or is "@"';
  const ends = 'it starts or ends with "." or ends with ".lock"';
  const cases: [string, string, string][] = [
    ["", "", "it is empty"],
    ["doc/plans/.md", ".md", ends],
    ["doc/plans/PLAN-a.lock.md", "PLAN-a.lock", ends],
    ["doc/plans/PLAN-x..md", "PLAN-x.", ends],
    ["doc/plans/PLAN-x..y.md", "PLAN-x..y", dots],
    ["doc/plans/PLAN-@{x}.md", "PLAN-@{x}", dots],
    ["doc/plans/@.md", "@", dots],
    ["doc/plans/PLAN-x:y.md", "PLAN-x:y", refs],
    ["doc/plans/PLAN-x~1.md", "PLAN-x~1", refs],
    ["doc/plans/PLAN-x^.md", "PLAN-x^", refs],
    ["doc/plans/PLAN-x?.md", "PLAN-x?", refs],
    ["doc/plans/PLAN-x*.md", "PLAN-x*", refs],
    ["doc/plans/PLAN-x[.md", "PLAN-x[", refs],
    ["doc/plans/PLAN-x\u007f.md", "PLAN-x\u007f", refs],
    ["doc/plans/PLAN-x\t.md", "PLAN-x\t", refs],
  ];
  for (const [path, id, problem] of cases) {
    it(`${JSON.stringify(path)}: ${problem}`, () => {
      expectError(
        parsePlan(path, plan),
        `plan id "${id}" (the file name) cannot be part of a branch name: ${problem}; rename the file`,
        1,
        1,
      );
    });
  }

  for (const path of ["doc/plans/PLAN-a@b.md", "doc/plans/PLAN-x.lockx.md", "doc\\plans\\PLAN-win.md"]) {
    it(`${JSON.stringify(path)} is a fine plan id`, () => {
      const result = parsePlan(path, plan);
      assert.ok(result.ok, JSON.stringify(result.ok ? [] : result.errors));
    });
  }
});

describe("stage ids", () => {
  for (const id of ["con", "prn", "aux", "nul", "com1", "COM9", "lpt1", "Lpt9"]) {
    it(`${id} is a reserved device name`, () => {
      assert.deepEqual(idErrors(id), [`9:11 stage id "${id}" is a reserved name`]);
    });
  }

  for (const id of ["com0", "lpt10", "console", "nulls", "1-x", "001-x", "a".repeat(39)]) {
    it(`${id} is fine`, () => assert.deepEqual(idErrors(id), []));
  }

  it("a two-digit number prefix is refused", () => {
    assert.deepEqual(idErrors("12-x"), [
      '9:11 stage id "12-x" starts with "NN-", which the reference CLI uses to number stage files; drop the number prefix',
    ]);
  });

  it("an id of 128 characters is too long only for a label; one of 129 is too long, shown cut", () => {
    const long = "a".repeat(128);
    assert.deepEqual(idErrors(long), [
      `9:11 stage id "${long}" is 128 characters: the label "loom:block:${long}" would exceed GitHub's 50-character limit; use at most 39`,
    ]);
    assert.deepEqual(idErrors("b".repeat(129)), [
      `9:11 stage id "${"b".repeat(57)}..." is 129 characters; the limit is 128`,
    ]);
  });

  it("a long id with bad characters is shown cut; one of 60 is shown whole", () => {
    assert.deepEqual(idErrors("a b".repeat(30)), [
      `9:11 stage id "${"a b".repeat(19)}..." may contain only letters, digits, "-" and "_" (it becomes a branch name, a label and a file name)`,
    ]);
    assert.deepEqual(idErrors("a b".repeat(20)), [
      `9:11 stage id "${"a b".repeat(20)}" may contain only letters, digits, "-" and "_" (it becomes a branch name, a label and a file name)`,
    ]);
  });

  it("every problem of an id is reported", () => {
    const id = `01-${"x".repeat(40)}`;
    assert.deepEqual(idErrors(id), [
      `9:11 stage id "${id}" starts with "NN-", which the reference CLI uses to number stage files; drop the number prefix`,
      `9:11 stage id "${id}" is 43 characters: the label "loom:block:${id}" would exceed GitHub's 50-character limit; use at most 39`,
    ]);
  });

  it("an empty id is refused", () => {
    const result = parsePlan("PLAN-x.md", planMarkdown([...HEADER, '    - id: ""', "      name: x"]));
    expectError(result, "stage id is empty", 9, 11);
  });

  it("a duplicate is found also when the first stage fails the schema, and each later copy is reported", () => {
    const result = parsePlan(
      "PLAN-x.md",
      planMarkdown([...HEADER, "    - id: a", "      name: 5", ...goodStage("a"), ...goodStage("A")]),
    );
    assert.deepEqual(result.ok ? [] : result.errors.map((e) => `${e.line}:${e.column} ${e.message}`), [
      '10:13 stage "a": `name` must be text, got 5',
      '11:11 duplicate stage id "a" (first defined at line 9)',
      '16:11 stage id "A" differs from "a" (line 9) only in letter case; labels and branches would clash',
    ]);
  });
});
