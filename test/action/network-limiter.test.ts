import assert from "node:assert/strict";
import { test } from "node:test";
import type { HostRun } from "../../action/src/isolation/run-host-command.ts";
import type { SessionSandbox } from "../../action/src/isolation/session-isolation.ts";
import { asPrivileged, createNetworkLimiter } from "../../action/src/sandbox/create-network-limiter.ts";

const sandbox = (via: "root" | "sudo"): SessionSandbox => ({
  isolation: { kind: "user", user: "loom-0123456789", uid: 1234, gid: 1234, via, created: true },
  home: "/tmp/home",
  privateDir: "/tmp/private",
  owner: { uid: 1000, gid: 1000 },
});

/** A fake `run` that records each call and answers as `answer` says. */
function recorder(answer: (command: string, args: readonly string[]) => HostRun) {
  const calls: string[] = [];
  const run = (command: string, args: readonly string[]): Promise<HostRun> => {
    calls.push([command, ...args].join(" "));
    return Promise.resolve(answer(command, args));
  };
  return { calls, run };
}

test("iptables runs as it is for a root action and through sudo -n for a sudo one", async () => {
  const root = recorder(() => ({ code: 0, stdout: "", stderr: "" }));
  await asPrivileged(sandbox("root"), root.run)("iptables", ["-S"]);
  const sudo = recorder(() => ({ code: 0, stdout: "", stderr: "" }));
  await asPrivileged(sandbox("sudo"), sudo.run)("iptables", ["-S"]);
  assert.deepEqual([...root.calls, ...sudo.calls], ["iptables -S", "sudo -n iptables -S"]);
});

test("without a separate session user nothing is installed and the reason is given", async () => {
  const fake = recorder(() => ({ code: 0, stdout: "", stderr: "" }));
  const none: SessionSandbox = { ...sandbox("root"), isolation: { kind: "none", reason: "no sudo" } };
  const limiter = createNetworkLimiter(none, { now: Date.now, log: () => undefined, run: fake.run });
  const granted = await limiter.limit({ allow: ["github.com"], loopback: false, direct: [] });
  assert.deepEqual(granted, { ok: false, reason: "the session runs as the runner's own user (no sudo)" });
  assert.deepEqual(fake.calls, []);
});

test("a rule iptables refuses stops the proxy, removes what was installed and says why", async () => {
  const fake = recorder((command, args) =>
    command === "sudo" && args.includes("-N") && args[1] === "ip6tables"
      ? { code: 3, stdout: "", stderr: "ip6tables: can't initialize ip6tables table `filter'\n" }
      : { code: args.includes("-S") || args.includes("-D") ? 1 : 0, stdout: "", stderr: "" },
  );
  const limiter = createNetworkLimiter(sandbox("sudo"), {
    now: Date.now,
    log: () => undefined,
    run: fake.run,
  });
  const granted = await limiter.limit({ allow: ["github.com"], loopback: false, direct: [] });
  assert.equal(granted.ok, false);
  assert.match(
    granted.ok ? "" : granted.reason,
    /^the egress rule could not be installed \(ip6tables -N loom-egress-0123456789: ip6tables: can't initialize/,
  );
  assert.ok(
    fake.calls.every((call) => call.startsWith("sudo -n ")),
    fake.calls.join("\n"),
  );
  assert.ok(
    fake.calls.some(
      (call) =>
        call === "sudo -n iptables -w 10 -I OUTPUT -m owner --uid-owner 1234 -j loom-egress-0123456789",
    ),
  );
  assert.deepEqual(await limiter.stop(), []);
});
