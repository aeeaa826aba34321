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
    want: /not a zip/,
  },
  { name: "a corrupted entry", data: corrupt(makeZip({ "a.json": "x".repeat(100) }, 0), 40), want: /CRC/ },
  {
    name: "an entry over the size limit",
    data: makeZip({ "big.json": "x".repeat(2000) }),
    limits: { maxEntries: 10, maxEntryBytes: 1000, maxTotalBytes: 10_000 },
    want: /too large/,
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
    want: /not a zip/,
  },
];

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

test("a deflate bomb is stopped at the declared size", () => {
  const zip = makeZip({ "bomb.json": "0".repeat(1_000_000) });
  // Lie about the size in the central directory: claim 100 bytes.
  const at = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  zip.writeUInt32LE(100, at + 24);
  const result = readZip(zip);
  assert.equal(result.ok, false);
});
