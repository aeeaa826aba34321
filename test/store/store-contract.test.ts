import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeStoreContract } from "./store-contract.ts";
import {
  createPostgresTestDatabase,
  createSqliteTestDatabase,
  findPostgresSkipReason,
  postgresRequired,
} from "./test-database.ts";

describe("SQLite store (temporary file)", () => describeStoreContract(createSqliteTestDatabase));

const postgresSkipReason = await findPostgresSkipReason();
if (postgresSkipReason !== undefined && postgresRequired) {
  it("PostgreSQL is reachable (LOOM_REQUIRE_POSTGRES=1)", () => assert.fail(postgresSkipReason));
} else {
  describe("PostgreSQL store (a schema per test)", { skip: postgresSkipReason ?? false }, () =>
    describeStoreContract(createPostgresTestDatabase),
  );
}
