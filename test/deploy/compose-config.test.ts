import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { z } from "zod";
import { isServiceRequired } from "../store/test-database.ts";

/**
 * compose.yaml as a real Compose implementation reads it (`docker-compose config`: interpolation and
 * validation, no engine needed): Debian 12's `docker-compose` package (1.29) or Compose v2's
 * standalone binary. Skipped where none is installed; required in CI (`.ci/run` installs it).
 */
const COMPOSE_FILE = path.resolve(import.meta.dirname, "../../compose.yaml");

function findSkipReason(): string | undefined {
  const installed = (process.env["PATH"] ?? "").split(path.delimiter).some((dir) => {
    try {
      accessSync(path.join(dir, "docker-compose"), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  if (installed) return undefined;
  const reason = "docker-compose is not on PATH";
  if (isServiceRequired("COMPOSE"))
    throw new Error(`docker-compose is required here (LOOM_REQUIRE_COMPOSE or CI is set): ${reason}`);
  console.warn(`compose-config.test.ts skipped: ${reason}`);
  return reason;
}

const skip = findSkipReason();

/** `docker-compose config` in a folder holding compose.yaml (a link to this one) and `.env` (`dotEnv`). */
async function config(dotEnv: string): Promise<{ status: number; stdout: string; stderr: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), "loom-compose-"));
  try {
    symlinkSync(COMPOSE_FILE, path.join(dir, "compose.yaml"));
    writeFileSync(path.join(dir, ".env"), dotEnv);
    // Only what the .env says: nothing of this process's environment is interpolated.
    return await new Promise((resolve) =>
      execFile(
        "docker-compose",
        ["config"],
        { cwd: dir, env: { PATH: process.env["PATH"] ?? "", HOME: dir }, encoding: "utf8" },
        (error, stdout, stderr) =>
          resolve({ status: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }),
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A published port: Compose 1 prints `127.0.0.1:3000:3000/tcp`, Compose 2 an object. */
const Port = z.union([
  z.string().transform((text) => {
    const parts = text.replace(/\/tcp$/, "").split(":");
    return { hostIp: parts.length === 3 ? parts[0]! : "", published: Number(parts.at(-2)) };
  }),
  z
    .object({ host_ip: z.string().optional(), published: z.coerce.number() })
    .transform((port) => ({ hostIp: port.host_ip ?? "", published: port.published })),
]);
const Rendered = z.object({
  services: z.object({
    app: z.object({ environment: z.record(z.string(), z.string()), ports: z.array(Port) }),
    postgres: z.object({ environment: z.record(z.string(), z.string()) }),
  }),
});

const CREDENTIALS = "APP_ID=1\nWEBHOOK_SECRET=x\n";

describe("docker-compose config reads compose.yaml", { skip, concurrency: true }, () => {
  it("refuses to start without POSTGRES_PASSWORD, or with an empty one, saying where to set it", async () => {
    for (const result of await Promise.all([
      config(CREDENTIALS),
      config(`${CREDENTIALS}POSTGRES_PASSWORD=\n`),
    ])) {
      assert.notEqual(result.status, 0, result.stdout);
      assert.match(result.stderr, /set POSTGRES_PASSWORD in \.env/);
    }
  });

  it("gives PostgreSQL and the App's DATABASE_URL the password from .env, and publishes on 127.0.0.1", async () => {
    const result = await config(`${CREDENTIALS}POSTGRES_PASSWORD=0f3a9c\n`);
    assert.equal(result.status, 0, result.stderr);
    const { app, postgres } = Rendered.parse(parse(result.stdout)).services;
    assert.equal(postgres.environment["POSTGRES_PASSWORD"], "0f3a9c");
    assert.equal(new URL(app.environment["DATABASE_URL"] ?? "").password, "0f3a9c");
    assert.deepEqual(app.ports, [{ hostIp: "127.0.0.1", published: 3000 }], "loopback only");
  });

  it("publishes the App on the address LOOM_BIND names", async () => {
    const result = await config(`${CREDENTIALS}POSTGRES_PASSWORD=p\nLOOM_BIND=0.0.0.0\n`);
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(Rendered.parse(parse(result.stdout)).services.app.ports, [
      { hostIp: "0.0.0.0", published: 3000 },
    ]);
  });
});
