import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveLabels } from "../../src/commands/resolve-labels.ts";

const base = { current: [], obeyed: [], ignored: [], changed: null, authorized: true };

describe("resolveLabels", () => {
  it("obeys the full current set when a writer changes a label (a missed event heals)", () => {
    assert.deepEqual(
      resolveLabels({ ...base, current: ["loom:block:b", "loom:hold"], changed: "loom:hold" }),
      { labels: ["loom:block:b", "loom:hold"], ignored: [] },
    );
  });

  it("keeps a reader's label without effect, also when a writer's later change carries it along", () => {
    const reader = resolveLabels({
      ...base,
      current: ["loom:block:b", "loom:skip:c"],
      obeyed: ["loom:block:b"],
      changed: "loom:skip:c",
      authorized: false,
    });
    assert.deepEqual(reader, { labels: ["loom:block:b"], ignored: ["loom:skip:c"] });
    const writer = resolveLabels({
      ...base,
      current: ["loom:skip:c"],
      obeyed: reader.labels,
      ignored: reader.ignored,
      changed: "loom:block:b",
    });
    assert.deepEqual(writer, { labels: [], ignored: ["loom:skip:c"] });
  });

  it("keeps a label a reader removed in force", () => {
    assert.deepEqual(
      resolveLabels({
        ...base,
        current: [],
        obeyed: ["loom:block:b"],
        changed: "loom:block:b",
        authorized: false,
      }),
      { labels: ["loom:block:b"], ignored: ["loom:block:b"] },
    );
  });

  it("makes a reader's label count once a writer adds or removes it again", () => {
    assert.deepEqual(
      resolveLabels({
        ...base,
        current: ["loom:skip:c"],
        ignored: ["loom:skip:c"],
        changed: "loom:skip:c",
      }),
      { labels: ["loom:skip:c"], ignored: [] },
    );
  });

  it("forgets an ignored label once the pull request agrees with what is obeyed", () => {
    assert.deepEqual(
      resolveLabels({
        ...base,
        current: [],
        ignored: ["loom:skip:c"],
        changed: "loom:skip:c",
        authorized: false,
      }),
      { labels: [], ignored: [] },
    );
  });
});
