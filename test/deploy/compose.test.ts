import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { z } from "zod";

const ROOT = path.resolve(import.meta.dirname, "../..");

const Healthcheck = z.object({ test: z.array(z.string()).min(2) }).passthrough();
const Service = z
  .object({
    image: z.string().optional(),
    build: z.string().optional(),
    environment: z.record(z.string(), z.string()).optional(),
    env_file: z.union([z.string(), z.array(z.string())]).optional(),
    depends_on: z.record(z.string(), z.object({ condition: z.string() })).optional(),
    volumes: z.array(z.string()).optional(),
    ports: z.array(z.string()).optional(),
    healthcheck: Healthcheck,
  })
  .passthrough();
const Compose = z.object({
  services: z.object({ app: Service, postgres: Service, redis: Service }),
  volumes: z.record(z.string(), z.unknown().nullable()),
});

const compose = Compose.parse(parse(readFileSync(path.join(ROOT, "compose.yaml"), "utf8")));
const { app, postgres, redis } = compose.services;

/** Compose's `${NAME:-default}` as the default would make it. */
function withDefaults(value: string): string {
  return value.replace(/\$\{\w+:-([^}]*)\}/g, "$1");
}

/** The PostgreSQL password as compose.yaml must write it: required, with the fix in the error. */
const REQUIRED_PASSWORD = "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD in .env}";

describe("compose.yaml", () => {
  it("has the App, PostgreSQL and Redis, each with a healthcheck", () => {
    for (const [name, service] of Object.entries(compose.services)) {
      assert.ok(["CMD", "CMD-SHELL"].includes(service.healthcheck.test[0]!), name);
    }
    assert.match(app.healthcheck.test.join(" "), /fetch\('http:\/\/127\.0\.0\.1:3000\/healthz'\)/);
    assert.match(postgres.healthcheck.test.join(" "), /pg_isready/);
    assert.match(redis.healthcheck.test.join(" "), /redis-cli ping/);
  });

  it("builds the App from this repository's Dockerfile and starts it once both stores are healthy", () => {
    assert.equal(app.build, ".");
    assert.deepEqual(app.depends_on, {
      postgres: { condition: "service_healthy" },
      redis: { condition: "service_healthy" },
    });
  });

  it("pins PostgreSQL and Redis to release tags", () => {
    assert.match(postgres.image ?? "", /^postgres:\d+\.\d+(-[a-z]+)?$/);
    assert.match(redis.image ?? "", /^redis:\d+\.\d+\.\d+(-[a-z]+)?$/);
  });

  it("wires DATABASE_URL to the postgres service's user, password and database", () => {
    const databaseUrl = app.environment?.["DATABASE_URL"] ?? "";
    const env = postgres.environment ?? {};
    assert.equal(env["POSTGRES_PASSWORD"], REQUIRED_PASSWORD, "no default password");
    assert.ok(databaseUrl.includes(`:${REQUIRED_PASSWORD}@`), databaseUrl);
    const url = new URL(databaseUrl.replace(REQUIRED_PASSWORD, "s3cret"));
    assert.equal(url.protocol, "postgres:");
    assert.equal(url.hostname, "postgres");
    assert.equal(url.port, "5432");
    assert.equal(url.username, env["POSTGRES_USER"]);
    assert.equal(url.password, "s3cret");
    assert.equal(url.pathname, `/${env["POSTGRES_DB"]}`);
    assert.match(
      postgres.healthcheck.test.join(" "),
      new RegExp(`-U ${env["POSTGRES_USER"]} -d ${env["POSTGRES_DB"]}`),
    );
  });

  it("wires REDIS_URL to the redis service", () => {
    const url = new URL(app.environment?.["REDIS_URL"] ?? "");
    assert.equal(url.hostname, "redis");
    assert.equal(url.port, "6379");
  });

  it("reads the App's credentials from .env and serves on the port its healthcheck uses", () => {
    assert.deepEqual([app.env_file].flat(), [".env"]);
    for (const secret of ["APP_ID", "PRIVATE_KEY", "WEBHOOK_SECRET"])
      assert.ok(!(secret in (app.environment ?? {})));
    assert.equal(app.environment?.["PORT"], "3000");
    assert.equal(app.environment?.["HOST"], "0.0.0.0");
    assert.deepEqual(app.ports?.map(withDefaults), ["127.0.0.1:3000:3000"], "loopback unless LOOM_BIND says");
    assert.ok(app.environment?.["LOOM_WORKER_ID"], "a worker id stable across restarts");
  });

  it("keeps PostgreSQL's data in a named volume", () => {
    const mounts = (postgres.volumes ?? []).map((v) => v.split(":"));
    assert.deepEqual(mounts, [["postgres-data", "/var/lib/postgresql/data"]]);
    assert.ok("postgres-data" in compose.volumes);
  });
});
