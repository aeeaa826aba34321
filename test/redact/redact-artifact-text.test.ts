import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { redactArtifactText } from "../../src/redact/redact-artifact-text.ts";
import { REDACTED } from "../../src/redact/redact-secrets.ts";

const KEY = "canary+Key/7f3a9c=loom";
const hex = Buffer.from(KEY).toString("hex");
const b64 = Buffer.from(`xy${KEY}`).toString("base64");

describe("redactArtifactText: artifacts stay readable after masking", () => {
  it("masks the job's secret in a pretty-printed JSON document and keeps it valid, indented and ended by a newline", () => {
    const doc = { reason: `hex ${hex}`, nested: [{ note: `b64 ${b64}` }], n: 3 };
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    const out = redactArtifactText(text, [KEY]);
    const parsed = JSON.parse(out) as typeof doc;
    assert.equal(parsed.reason, `hex ${REDACTED}`);
    // Only the base64 characters that depend on the key alone are masked (not those of "xy").
    assert.match(parsed.nested[0]?.note ?? "", /^b64 eHl\[REDACTED\]/);
    assert.equal(parsed.n, 3);
    assert.ok(out.startsWith('{\n  "reason"') && out.endsWith("}\n"), out);
  });

  it("masks JSON Lines line by line, leaving clean lines byte for byte", () => {
    const clean = '{"type":"system","note":"caf\\u00e9"}';
    const text = `${clean}\n${JSON.stringify({ type: "user", content: `echo ${hex}` })}\n`;
    const lines = redactArtifactText(text, [KEY]).split("\n");
    assert.equal(lines[0], clean);
    assert.deepEqual(JSON.parse(lines[1] ?? ""), { type: "user", content: `echo ${REDACTED}` });
    assert.equal(lines[2], "");
  });

  it("cuts a private key without its END line to the end of its string, not of the transcript", () => {
    const text = [
      JSON.stringify({ text: "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" }),
      JSON.stringify({ text: "the next message" }),
    ].join("\n");
    const lines = redactArtifactText(text, [])
      .split("\n")
      .map((line) => JSON.parse(line) as { text: string });
    assert.deepEqual(
      lines.map((l) => l.text),
      [REDACTED, "the next message"],
    );
  });

  it("masks plain text (markdown) as text", () => {
    assert.equal(
      redactArtifactText(`# Summary\n\nkey ${hex.toUpperCase()} here\n`, [KEY]),
      `# Summary\n\nkey ${REDACTED} here\n`,
    );
  });

  it("returns a clean artifact unchanged", () => {
    const text = '{\n    "a": "b"\n}';
    assert.equal(redactArtifactText(text, [KEY]), text);
  });
});
