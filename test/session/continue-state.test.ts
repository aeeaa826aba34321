import { test } from "node:test";
import assert from "node:assert/strict";
import {
  continueRecordRef,
  parseContinueRecord,
  renderContinueRecord,
  type ContinueRecord,
} from "../../src/artifacts/continue-record.ts";
import { checkSessionTranscript } from "../../src/artifacts/session-state.ts";
import { redactArtifactText } from "../../src/redact/redact-artifact-text.ts";
import { makeProjectSlug } from "../../action/src/session/claude-project-dir.ts";

const record: ContinueRecord = {
  version: 1,
  key: "b10b5ha01234-pr7-PLAN-demo:c:3:dispatch",
  stage_id: "c",
  by: "alice",
  from_attempt: 2,
  instructions: 'also handle the empty case\n</instructions> "quoted"',
};

test("a continue record survives its tag message and lives under the stage branch's record ref", () => {
  const message = renderContinueRecord(record);
  assert.match(message, /^loom continue c \(b10b5ha01234-pr7-PLAN-demo:c:3:dispatch\)\n\n\{/);
  assert.deepEqual(parseContinueRecord(message), record);
  assert.equal(continueRecordRef("loom/pr-7/PLAN-demo/c"), "loom/continue/loom/pr-7/PLAN-demo/c");
});

test("a tag message that holds no valid record is no record", () => {
  assert.equal(parseContinueRecord("v1.0.0 release"), null);
  assert.equal(parseContinueRecord(`x\n\n${JSON.stringify({ ...record, instructions: "" })}`), null);
  assert.equal(parseContinueRecord(`x\n\n${JSON.stringify({ ...record, version: 2 })}`), null);
});

const ID = "71278deb-52e9-4b55-b355-17c5214b97c0";
const line = (entry: Record<string, unknown>) => JSON.stringify(entry);
const transcript = [
  line({ type: "queue-operation", operation: "enqueue", sessionId: ID }),
  line({
    type: "user",
    sessionId: ID,
    message: { role: "user", content: "Do it with sk-ant-test-not-a-key" },
  }),
  line({
    type: "assistant",
    sessionId: ID,
    message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
  }),
  "",
].join("\n");

test("a transcript resumes when every line is JSON and its conversation is the named session's, redacted or not", () => {
  assert.deepEqual(checkSessionTranscript(transcript, ID), { ok: true });
  const redacted = redactArtifactText(transcript, ["sk-ant-test-not-a-key"]);
  assert.ok(!redacted.includes("sk-ant-test-not-a-key"));
  assert.deepEqual(checkSessionTranscript(redacted, ID), { ok: true });
});

test("a transcript that cannot be resumed says why", () => {
  const other = "00000000-0000-4000-8000-000000000000";
  assert.deepEqual(checkSessionTranscript(`${transcript}{"type":"user",`, ID), {
    ok: false,
    reason: "line 4 is not JSON",
  });
  assert.deepEqual(checkSessionTranscript(transcript, other), {
    ok: false,
    reason: "line 2 belongs to another session",
  });
  assert.deepEqual(checkSessionTranscript(line({ type: "queue-operation", sessionId: ID }), ID), {
    ok: false,
    reason: "it holds no conversation",
  });
  assert.deepEqual(checkSessionTranscript("[1,2]", ID), {
    ok: false,
    reason: "line 1 is not a transcript entry",
  });
});

test("the project folder of a checkout is named as Claude Code 2.1.197 names it, long paths cut and hashed", () => {
  assert.equal(makeProjectSlug("/home/runner/work/widgets/widgets"), "-home-runner-work-widgets-widgets");
  // Seen with the pinned binary: the folder it made for this working directory (253 characters).
  const long = [
    "/tmp/loom-slug-pin",
    "a-very-long-directory-name-that-goes-on".repeat(3),
    "and-on-and-on-\u00fcn\u00efcode-too".repeat(3),
    "x".repeat(40),
  ].join("/");
  assert.equal(
    makeProjectSlug(long),
    "-tmp-loom-slug-pin-a-very-long-directory-name-that-goes-ona-very-long-directory-name-that-goes-ona-very-long-directory-name-that-goes-on-and-on-and-on--n-code-tooand-on-and-on--n-code-tooand-on-and-on-73u6p4",
  );
});
