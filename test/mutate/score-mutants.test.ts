import assert from "node:assert/strict";
import { existsSync, globSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { MUTATED_FOLDERS, partsOf, scoreMutants, sumScores } from "../../scripts/score-mutants.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const at = (line: number) => ({ start: { line, column: 3 } });

test("the score is killed and timed out over the mutants that ran; errors are left out; survivors are listed", () => {
  const score = scoreMutants({
    files: {
      "src/b.ts": {
        mutants: [
          { mutatorName: "EqualityOperator", replacement: "a < b", status: "Survived", location: at(9) },
          { mutatorName: "BlockStatement", replacement: "{}", status: "Killed", location: at(1) },
        ],
      },
      "src/a.ts": {
        mutants: [
          { mutatorName: "StringLiteral", replacement: '""', status: "NoCoverage", location: at(4) },
          { mutatorName: "BooleanLiteral", replacement: "true", status: "Timeout", location: at(5) },
          { mutatorName: "ArithmeticOperator", replacement: "a - b", status: "Killed", location: at(6) },
          { mutatorName: "OptionalChaining", replacement: "a.b", status: "CompileError", location: at(7) },
          { mutatorName: "ConditionalExpression", replacement: "false", status: "Ignored", location: at(8) },
        ],
      },
    },
  });
  assert.deepEqual(
    [score.killed, score.timedOut, score.survived, score.noCoverage, score.errors],
    [2, 1, 1, 1, 1],
  );
  assert.equal(score.percent, 60);
  assert.deepEqual(score.survivors, [
    'src/a.ts:4:3 StringLiteral → ""',
    "src/b.ts:9:3 EqualityOperator → a < b",
  ]);
});

test("a folder without mutants scores 100", () => {
  assert.equal(scoreMutants({ files: {} }).percent, 100);
});

test("a folder measured in parts scores its parts' counts added up, not the average of their percents", () => {
  const mutants = (statuses: string[]) =>
    statuses.map((status, line) => ({
      mutatorName: "BlockStatement",
      replacement: "{}",
      status,
      location: at(line),
    }));
  // 1 of 2 in a small part, 8 of 8 in a large one: 9 of 10, where an average of percents says 75.
  const small = scoreMutants({
    files: { "app/x/a.ts": { mutants: mutants(["Killed", "Survived", "CompileError"]) } },
  });
  const large = scoreMutants({
    files: { "app/x/b.ts": { mutants: mutants(["Timeout", ...Array<string>(7).fill("Killed")]) } },
  });
  const total = sumScores([small, large]);
  assert.deepEqual(
    [total.killed, total.timedOut, total.survived, total.noCoverage, total.errors],
    [8, 1, 1, 0, 1],
  );
  assert.equal(total.percent, 90);
  assert.deepEqual(total.survivors, ["app/x/a.ts:1:3 BlockStatement → {}"]);
  assert.equal(sumScores([]).percent, 100);
  assert.deepEqual(sumScores([large]), large, "one part's sum is that part's score");
});

test("every mutated folder exists and each of its test patterns names test files", () => {
  for (const [folder, spec] of Object.entries(MUTATED_FOLDERS)) {
    assert.ok(existsSync(path.join(ROOT, folder)), folder);
    for (const part of partsOf(folder, spec))
      for (const pattern of part.tests)
        assert.ok(globSync(pattern, { cwd: ROOT }).length > 0, `${folder} (${part.name}): ${pattern}`);
  }
});

test("a folder measured in parts has each of its source files in exactly one part, and no part names a file outside it", () => {
  for (const [folder, spec] of Object.entries(MUTATED_FOLDERS)) {
    const parts = partsOf(folder, spec);
    const owners = new Map<string, string[]>(
      globSync(`${folder}/**/*.ts`, { cwd: ROOT }).map((file) => [file, []]),
    );
    for (const part of parts)
      for (const pattern of part.files) {
        const files = globSync(pattern, { cwd: ROOT });
        assert.ok(files.length > 0, `${folder} (${part.name}): ${pattern} names no file`);
        for (const file of files) {
          assert.ok(owners.has(file), `${folder} (${part.name}): ${file} is outside the folder`);
          owners.get(file)?.push(part.name);
        }
      }
    for (const [file, names] of owners)
      assert.equal(names.length, 1, `${file} is in parts [${names.join(", ")}]`);
    assert.equal(new Set(parts.map((part) => part.name)).size, parts.length, `${folder}: part names repeat`);
  }
});
