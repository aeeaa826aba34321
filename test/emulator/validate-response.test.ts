import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateResponse, validateWebhook } from "./validate-response.ts";

describe("the emulator's answers are checked against GitHub's response schemas", () => {
  it("an answer missing what GitHub's schema requires is reported, field by field", () => {
    const problems = validateResponse("GET", "/repos/o/r/git/ref/heads/main", 200, {
      ref: "refs/heads/main",
    });
    assert.ok(problems.length > 0);
    assert.ok(
      problems.some((problem) => problem.includes("must have required property 'object'")),
      problems.join("\n"),
    );
  });

  it("an answer that fits passes, and a status with no JSON schema is not checked", () => {
    const ref = {
      ref: "refs/heads/main",
      node_id: "R",
      url: "https://api.github.com/repos/o/r/git/refs/heads/main",
      object: { type: "commit", sha: "a".repeat(40), url: "https://api.github.com/repos/o/r/git/commits/a" },
    };
    assert.deepEqual(validateResponse("GET", "/repos/o/r/git/ref/heads/main", 200, ref), []);
    assert.deepEqual(validateResponse("DELETE", "/repos/o/r/git/refs/heads/main", 204, undefined), []);
  });

  it("a webhook payload is checked against its event's schema, and an unknown event throws", () => {
    assert.ok(validateWebhook("check_run", "rerequested", { action: "rerequested" }).length > 0);
    assert.throws(
      () => validateWebhook("check_run", "no-such-action", {}),
      /has no webhook check-run-no-such-action/,
    );
  });
});
