import assert from "node:assert/strict";
import { test } from "node:test";
import { isSameData } from "../../src/plan/is-same-data.ts";

/**
 * `parsePlan` uses the fast YAML reader's result only when `isSameData` says it is the careful
 * reader's; a false "same" would run a plan other than the one written.
 */

test("scalars are the same only when equal in value and type", () => {
  assert.equal(isSameData("npm test", "npm test"), true);
  assert.equal(isSameData(Number.NaN, Number.NaN), true);
  assert.equal(isSameData(null, null), true);
  assert.equal(isSameData(1, "1"), false);
  assert.equal(isSameData(true, "true"), false);
  assert.equal(isSameData("a", "b"), false);
});

test("a scalar or null is never the same as an object or array", () => {
  assert.equal(isSameData(null, {}), false);
  assert.equal(isSameData({}, null), false);
  assert.equal(isSameData("a", ["a"]), false);
  assert.equal(isSameData(["a"], "a"), false);
  assert.equal(isSameData(0, {}), false);
  assert.equal(isSameData({}, 0), false, "an empty object is not a number, though neither has keys");
});

test("an array is not the same as an object with its indices as keys", () => {
  assert.equal(isSameData(["a"], { 0: "a" }), false);
  assert.equal(isSameData({ 0: "a" }, ["a"]), false);
  assert.equal(isSameData([], {}), false);
});

test("objects and arrays are the same when every key and item is, at any depth", () => {
  const stage = { id: "a", dependencies: ["b", "c"], acceptance: [{ run: "npm test" }] };
  assert.equal(isSameData(stage, structuredClone(stage)), true);
  assert.equal(isSameData([[1, 2], []], [[1, 2], []]), true);
  assert.equal(isSameData({ ...stage, dependencies: ["b"] }, stage), false, "an item fewer");
  assert.equal(isSameData(stage, { ...stage, dependencies: ["b", "d"] }), false, "another item");
  assert.equal(isSameData({ a: 1 }, { a: 1, b: 2 }), false, "a key more");
  assert.equal(isSameData({ a: 1, b: 2 }, { a: 1 }), false, "a key fewer");
  assert.equal(isSameData({ a: 1 }, { b: 1 }), false, "another key");
  assert.equal(isSameData({ a: undefined }, { b: undefined }), false, "another key, same value");
  assert.equal(isSameData({ a: { b: [1] } }, { a: { b: [2] } }), false, "deep down");
});
