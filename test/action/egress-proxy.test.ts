import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import http from "node:http";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { findSocketCommand } from "../../action/src/sandbox/find-socket-command.ts";
import { startEgressProxy, type EgressProxy } from "../../action/src/sandbox/start-egress-proxy.ts";

const run = promisify(execFile);
let server: http.Server;
let port = 0;
let proxy: EgressProxy;

before(async () => {
  server = http.createServer((request, response) => response.end(`hello ${request.headers.host}`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
  proxy = await startEgressProxy({
    allow: ["allowed.localhost", "*.ok.localhost"],
    now: () => 0,
    findCommand: findSocketCommand,
  });
});
after(async () => {
  await proxy.close();
  await new Promise((resolve) => server.close(resolve));
});

/** curl through the proxy; `tunnel` forces CONNECT even for http:// (as HTTPS would). */
async function curl(host: string, tunnel: boolean): Promise<{ code: number; out: string; err: string }> {
  const args = [
    "-sS",
    "-f",
    "-m",
    "5",
    "--proxy",
    proxy.url,
    ...(tunnel ? ["--proxytunnel"] : []),
    `http://${host}:${port}/`,
  ];
  try {
    const { stdout, stderr } = await run("curl", args);
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout, err: e.stderr };
  }
}

test("the egress proxy lets an allowed host name through, plain and tunnelled", async () => {
  for (const tunnel of [false, true]) {
    const answer = await curl("allowed.localhost", tunnel);
    assert.equal(answer.code, 0, answer.err);
    assert.equal(answer.out, `hello allowed.localhost:${port}`);
    assert.equal((await curl("a.ok.localhost", tunnel)).code, 0);
  }
});

test("the egress proxy refuses a host outside the allowlist and records it once with the command", async () => {
  for (const tunnel of [false, true]) {
    const answer = await curl("denied.localhost", tunnel);
    assert.notEqual(answer.code, 0);
    assert.match(answer.err, /403/);
  }
  assert.notEqual((await curl("ok.localhost", false)).code, 0, "*.ok.localhost does not cover ok.localhost");
  const denials = proxy.denials();
  const denied = denials.find((d) => d.host === "denied.localhost");
  assert.ok(denied);
  assert.equal(denied.port, port);
  assert.equal(denied.count, 2);
  assert.equal(denied.at, new Date(0).toISOString());
  if (process.platform === "linux") assert.match(denied.command ?? "", /^curl .*denied\.localhost/);
  assert.deepEqual(
    denials.map((d) => d.host),
    ["denied.localhost", "ok.localhost"],
  );
});

test("the egress proxy sends a client asking for an https:// URL without CONNECT away, without counting a block", async () => {
  const before = proxy.denials().length;
  const status = await new Promise<number>((resolve, reject) => {
    const request = http.request(
      { host: "127.0.0.1", port: proxy.port, path: `https://denied.localhost:${port}/` },
      (answer) => {
        answer.resume();
        resolve(answer.statusCode ?? 0);
      },
    );
    request.on("error", reject);
    request.end();
  });
  assert.equal(status, 400);
  assert.equal(proxy.denials().length, before);
});
