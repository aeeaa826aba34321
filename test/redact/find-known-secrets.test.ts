import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  findKnownSecrets,
  listKnownSecretForms,
  MIN_KNOWN_SECRET_LENGTH,
} from "../../src/redact/find-known-secrets.ts";
import { REDACTED, findSecrets, redactSecrets } from "../../src/redact/redact-secrets.ts";

// A canary with characters that percent-encoding escapes and whose base64 holds `+` and `/`.
const KEY = "canary+Key/7f3a9c=loom?~";
const b64 = (text: string): string => Buffer.from(text, "latin1").toString("base64");
const b64url = (text: string): string => Buffer.from(text, "latin1").toString("base64url");
const hex = (text: string): string => Buffer.from(text, "latin1").toString("hex");

function encodings(): { name: string; text: string }[] {
  return [
    { name: "plain", text: `export KEY=${KEY}\n` },
    { name: "percent (encodeURIComponent)", text: `https://x.example/?k=${encodeURIComponent(KEY)}&z=1` },
    {
      name: "percent, lower-case hex, every character escaped",
      text: `k=${[...Buffer.from(KEY)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")}`,
    },
    { name: "base64 at offset 0", text: `data:${b64(KEY)}` },
    { name: "base64 at offset 1 of a longer stream", text: b64(`x${KEY}tail`) },
    { name: "base64 at offset 2 of a longer stream", text: b64(`xy${KEY}more bytes`) },
    { name: "base64 inside a longer stream, offset 0 mod 3", text: b64(`xyz${KEY}!`) },
    { name: "base64url at offset 0", text: b64url(KEY) },
    { name: "base64url at offset 1", text: b64url(`a${KEY}bc`) },
    { name: "base64url at offset 2", text: b64url(`ab${KEY}c`) },
    { name: "lower-case hex", text: `0x${hex(KEY)}` },
    { name: "upper-case hex", text: hex(`--${KEY}--`).toUpperCase() },
  ];
}

describe("findKnownSecrets: the job's secret in every encoding", () => {
  for (const { name, text } of encodings()) {
    it(`finds the key ${name}, and redactSecrets masks it`, () => {
      assert.ok(findKnownSecrets(text, [KEY]).length > 0, text);
      const redacted = redactSecrets(text, [KEY]);
      assert.ok(redacted.includes(REDACTED), redacted);
      assert.deepEqual(findKnownSecrets(redacted, [KEY]), [], redacted);
    });
  }

  it("names the encoding in findSecrets, never the value", () => {
    const findings = findSecrets(`a\nb ${b64(`xy${KEY}z`)}`, [KEY]);
    assert.deepEqual(
      findings.map((f) => [f.kind, f.encoding, f.line]),
      [["known-secret", "base64", 2]],
    );
    assert.ok(!JSON.stringify(findings).includes(KEY));
  });

  it("finds a secret stored with a trailing newline written without it", () => {
    assert.equal(redactSecrets(`token ${KEY}.`, [`${KEY}\n`]), `token ${REDACTED}.`);
  });

  it("property: any value of 8+ characters is found in base64 of any text around it", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: MIN_KNOWN_SECRET_LENGTH, maxLength: 60 }),
        fc.string({ maxLength: 10 }),
        fc.string({ maxLength: 10 }),
        (secret, before, after) => {
          const stream = Buffer.from(`${before}${secret}${after}`).toString("base64");
          assert.ok(findKnownSecrets(stream, [secret]).length > 0, JSON.stringify({ secret, before, after }));
        },
      ),
    );
  });

  it("property: any value of 8+ characters is found percent-encoded and in hex", () => {
    fc.assert(
      fc.property(fc.string({ minLength: MIN_KNOWN_SECRET_LENGTH, maxLength: 40 }), (secret) => {
        assert.ok(findKnownSecrets(`q=${encodeURIComponent(secret)}`, [secret]).length > 0);
        assert.ok(findKnownSecrets(Buffer.from(secret).toString("hex").toUpperCase(), [secret]).length > 0);
      }),
    );
  });
});

describe("findKnownSecrets: what it leaves alone", () => {
  it(`does not look for values shorter than ${MIN_KNOWN_SECRET_LENGTH} characters (they would mask ordinary text)`, () => {
    const short = "abc1234";
    const text = `abc1234 ${b64(short)} ${hex(short)}`;
    assert.deepEqual(findKnownSecrets(text, [short, "", "  "]), []);
    assert.equal(redactSecrets(text, [short]), text);
    assert.deepEqual(listKnownSecretForms([short]), []);
  });

  it("does not flag the base64 of other text", () => {
    const text = b64("an ordinary sentence about canaries and keys, 7f3a9c");
    assert.deepEqual(findKnownSecrets(text, [KEY]), []);
  });
});

describe("listKnownSecretForms: literals for the runner's log masking", () => {
  it("lists the plain, percent, hex and base64 forms, each one findKnownSecrets finds", () => {
    const forms = listKnownSecretForms([KEY]);
    for (const form of [KEY, encodeURIComponent(KEY), hex(KEY), hex(KEY).toUpperCase()])
      assert.ok(forms.includes(form), form);
    for (const form of forms) assert.ok(findKnownSecrets(form, [KEY]).length > 0, form);
  });
});
