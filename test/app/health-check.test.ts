import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { createHealthCheck } from "../../app/handlers/health-check.ts";

/** Serves the health check on 127.0.0.1 (404 for whatever it does not handle). */
async function serve(
  t: { after: (fn: () => Promise<void>) => void },
  ping: () => Promise<void>,
  errors: unknown[] = [],
): Promise<string> {
  const handle = createHealthCheck({ ping }, (error) => errors.push(error));
  const server = createServer((req, res) => {
    void handle(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test("GET /healthz answers 200 while the store answers", async (t) => {
  const url = await serve(t, () => Promise.resolve());
  const response = await fetch(`${url}/healthz`);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { ok: true });
  assert.equal((await fetch(`${url}/other`)).status, 404, "other paths are left to the next handler");
  assert.equal((await fetch(`${url}/healthz`, { method: "POST" })).status, 404);
});

test("GET /healthz answers 503 without the database's error when the store cannot be reached", async (t) => {
  const errors: unknown[] = [];
  const url = await serve(
    t,
    () => Promise.reject(new Error("connect ECONNREFUSED postgres://loom:hunter2@db:5432/loom")),
    errors,
  );
  const response = await fetch(`${url}/healthz`);
  assert.equal(response.status, 503);
  const body = await response.text();
  assert.doesNotMatch(body, /hunter2|ECONNREFUSED/);
  assert.deepEqual(JSON.parse(body), { ok: false, error: "the store is unreachable" });
  assert.equal(errors.length, 1, "the error goes to the log");
});
