import assert from "node:assert/strict";
import { test } from "node:test";
import { isServiceRequired } from "./test-database.ts";

test("a CI run or LOOM_REQUIRE_<NAME>=1 makes a missing PostgreSQL or Redis a failure, never a skip", () => {
  assert.equal(isServiceRequired("POSTGRES", {}), false, "a developer's machine may skip");
  assert.equal(isServiceRequired("POSTGRES", { CI: "false" }), false);
  assert.equal(isServiceRequired("POSTGRES", { CI: "true" }), true);
  assert.equal(isServiceRequired("REDIS", { CI: "1" }), true);
  assert.equal(isServiceRequired("REDIS", { LOOM_REQUIRE_REDIS: "1" }), true);
  assert.equal(
    isServiceRequired("REDIS", { LOOM_REQUIRE_POSTGRES: "1" }),
    false,
    "each service has its own switch",
  );
});
