import assert from "node:assert/strict";
import { existsSync, globSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { MUTATED_FOLDERS, scoreMutants } from "../../scripts/score-mutants.ts";

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

test("every mutated folder exists and each of its test patterns names test files", () => {
  for (const [folder, tests] of Object.entries(MUTATED_FOLDERS)) {
    assert.ok(existsSync(path.join(ROOT, folder)), folder);
    for (const pattern of tests)
      assert.ok(globSync(pattern, { cwd: ROOT }).length > 0, `${folder}: ${pattern}`);
  }
});
