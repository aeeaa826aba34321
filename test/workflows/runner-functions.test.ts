import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { evaluateExpression } from "./executor/evaluate-template.ts";
import { hashFilesFunction, listStatusFunctions, type Status } from "./executor/runner-functions.ts";

describe("the functions the runner adds to GitHub's expression engine", () => {
  const workspace = mkdtempSync(path.join(tmpdir(), "loom-hashfiles-"));
  after(() => rmSync(workspace, { recursive: true, force: true }));
  mkdirSync(path.join(workspace, "sub"));
  writeFileSync(path.join(workspace, "a.lock"), "a\n");
  writeFileSync(path.join(workspace, "sub", "b.lock"), "b\n");
  writeFileSync(path.join(workspace, "c.txt"), "c\n");
  const hash = (patterns: string): unknown =>
    evaluateExpression(`hashFiles(${patterns})`, { contexts: {}, functions: [hashFilesFunction(workspace)] });
  const sha = (data: Buffer | string): Buffer => createHash("sha256").update(data).digest();

  it("hashFiles: the SHA-256 of the matched files' SHA-256s in path order, '' when nothing matches, ! excludes", () => {
    const expected = createHash("sha256").update(sha("a\n")).update(sha("b\n")).digest("hex");
    assert.equal(hash("'**/*.lock'"), expected);
    assert.equal(hash("'**/*.lock', '!sub/**'"), createHash("sha256").update(sha("a\n")).digest("hex"));
    assert.equal(hash("'*.none'"), "");
  });

  it("success(), failure(), cancelled(), always() answer from the job's or the needs' status", () => {
    const answer = (status: Status) =>
      ["success()", "failure()", "cancelled()", "always()", "!cancelled()"].map((e) =>
        evaluateExpression(e, { contexts: {}, functions: listStatusFunctions(() => status) }),
      );
    assert.deepEqual(answer({ failed: false, cancelled: false }), [true, false, false, true, true]);
    assert.deepEqual(answer({ failed: true, cancelled: false }), [false, true, false, true, true]);
    assert.deepEqual(answer({ failed: false, cancelled: true }), [false, false, true, true, false]);
    assert.deepEqual(answer({ failed: false, cancelled: false, needSkipped: true }), [
      false,
      false,
      false,
      true,
      true,
    ]);
  });
});
