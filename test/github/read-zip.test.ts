import assert from "node:assert/strict";
import { test } from "node:test";
import { readZip } from "../../app/github/read-zip.ts";
import { makeZip } from "./make-zip.ts";

test("a deflated zip made here reads back file by file", () => {
  const zip = makeZip({
    "loom-result.json": JSON.stringify({ ok: true, text: "x".repeat(5000) }),
    "dir/": "",
    "b.txt": "hello",
  });
  const result = readZip(zip);
  assert.equal(result.ok, true);
  if (!result.ok) return;
  assert.deepEqual([...result.files.keys()], ["loom-result.json", "b.txt"]);
  assert.equal(JSON.parse(result.files.get("loom-result.json")!.toString()).text.length, 5000);
  assert.equal(result.files.get("b.txt")!.toString(), "hello");
});

test("a stored (uncompressed) zip reads back", () => {
  const result = readZip(makeZip({ "heartbeat.json": "{}" }, 0));
  assert.equal(result.ok && result.files.get("heartbeat.json")?.toString(), "{}");
});

const broken = [
  {
    name: "not a zip",
    data: Buffer.from("hello world, this is not a zip archive at all"),
    want: /not a readable zip/,
  },
  {
    // The deflate stream of a.json starts at byte 36 (30-byte local header + name).
    name: "a corrupted deflated entry",
    data: corrupt(makeZip({ "a.json": JSON.stringify({ text: "x".repeat(500) }) }), 36),
    want: /not a readable zip|wrong size/,
  },
  {
    name: "an entry that says it is larger than its data",
    data: declareSize(makeZip({ "a.json": "x".repeat(100) }), 5000),
    want: /wrong size/,
  },
  {
    name: "an entry over the size limit",
    data: makeZip({ "big.json": "x".repeat(2000) }),
    limits: { maxEntries: 10, maxEntryBytes: 1000, maxTotalBytes: 10_000 },
    want: /too large \(2000 bytes\)/,
  },
  {
    name: "entries that together pass the total limit",
    data: makeZip({ a: "x".repeat(600), b: "y".repeat(600) }),
    limits: { maxEntries: 10, maxEntryBytes: 1000, maxTotalBytes: 1000 },
    want: /archive too large/,
  },
  {
    name: "an entry declaring more than the limit, refused before it is inflated",
    data: declareSize(makeZip({ "huge.json": "x" }), 4_000_000_000),
    want: /too large \(4000000000 bytes\)/,
  },
  {
    name: "too many entries",
    data: makeZip({ a: "1", b: "2", c: "3" }),
    limits: { maxEntries: 2, maxEntryBytes: 1000, maxTotalBytes: 10_000 },
    want: /too many entries/,
  },
  {
    name: "a truncated archive",
    data: makeZip({ "a.json": "x".repeat(300) }).subarray(0, 20),
    want: /not a readable zip/,
  },
];

/** Rewrites the uncompressed size the central directory declares for the (only) entry. */
function declareSize(zip: Buffer, size: number): Buffer {
  const copy = Buffer.from(zip);
  const at = copy.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  copy.writeUInt32LE(size, at + 24);
  return copy;
}

function corrupt(zip: Buffer, at: number): Buffer {
  const copy = Buffer.from(zip);
  copy[at] = (copy[at] ?? 0) ^ 0xff;
  return copy;
}

for (const c of broken) {
  test(`${c.name} is refused with a reason, never thrown`, () => {
    const result = readZip(c.data, c.limits);
    assert.equal(result.ok, false);
    assert.match(result.ok ? "" : result.reason, c.want);
  });
}

test("a deflate bomb that lies about its size never inflates past the size it declares", () => {
  // A megabyte of zeros that the central directory says is 100 bytes.
  const result = readZip(declareSize(makeZip({ "bomb.json": "0".repeat(1_000_000) }), 100));
  assert.ok(!result.ok || (result.files.get("bomb.json")?.length ?? 0) <= 100);
});

test("a deflate bomb that declares its size is refused by the limits before it is inflated", () => {
  const result = readZip(makeZip({ "bomb.json": "0".repeat(1_000_000) }), {
    maxEntries: 10,
    maxEntryBytes: 1000,
    maxTotalBytes: 10_000,
  });
  assert.equal(result.ok, false);
  assert.match(result.ok ? "" : result.reason, /bomb.json is too large \(1000000 bytes\)/);
});

test("a zip at the limits exactly is read", () => {
  const result = readZip(makeZip({ a: "x".repeat(500), b: "y".repeat(500) }), {
    maxEntries: 2,
    maxEntryBytes: 500,
    maxTotalBytes: 1000,
  });
  assert.equal(result.ok && result.files.size, 2);
});
