import { runHostCommand } from "../isolation/run-host-command.ts";
import type { SessionSandbox } from "../isolation/session-isolation.ts";
import { egressChainName, installEgressRule, removeEgressRule, type PrivilegedRun } from "./egress-rule.ts";
import { findSocketCommand } from "./find-socket-command.ts";
import type { LimitNetwork } from "./network-limit.ts";
import { startEgressProxy, type EgressProxy } from "./start-egress-proxy.ts";

export type NetworkLimiter = {
  limit: LimitNetwork;
  /** Removes the egress rule and stops the proxy; returns what could not be undone. Safe to call twice. */
  stop: () => Promise<string[]>;
};

/**
 * The network limiter of this job's session user: loom's egress proxy on 127.0.0.1 and an
 * iptables rule that sends only that user's traffic to it. It needs the separate session user
 * (the rule matches its uid) and root or passwordless sudo (to install the rule).
 */
export function createNetworkLimiter(
  sandbox: SessionSandbox | undefined,
  options: {
    now: () => number;
    log: (message: string, data?: Record<string, unknown>) => void;
    /** Runs a program (default: `runHostCommand`); made privileged here (sudo when the sandbox switches users so). */
    run?: PrivilegedRun;
  },
): NetworkLimiter {
  let proxy: EgressProxy | undefined;
  let rule: { chain: string; uid: number } | undefined;
  const isolation = sandbox?.isolation;
  const privileged = asPrivileged(sandbox, options.run ?? runHostCommand);
  const stop = async (): Promise<string[]> => {
    const problems = rule === undefined ? [] : await removeEgressRule(privileged, rule);
    rule = undefined;
    await proxy?.close();
    proxy = undefined;
    return problems;
  };
  const limit: LimitNetwork = async (request) => {
    if (isolation === undefined)
      return {
        ok: false,
        reason: "the action was started without a session user to hold to the network rule",
      };
    if (isolation.kind === "none")
      return { ok: false, reason: `the session runs as the runner's own user (${isolation.reason})` };
    await stop();
    proxy = await startEgressProxy({
      allow: request.allow,
      now: options.now,
      findCommand: findSocketCommand,
      log: options.log,
    });
    const wanted = {
      chain: egressChainName(isolation.user),
      uid: isolation.uid,
      proxyPort: proxy.port,
      direct: request.direct,
      loopback: request.loopback,
    };
    const problem = await installEgressRule(privileged, wanted);
    if (problem !== null) {
      await stop();
      return { ok: false, reason: `the egress rule could not be installed (${problem.slice(0, 300)})` };
    }
    rule = wanted;
    const active = proxy;
    const url = active.url;
    return {
      ok: true,
      limit: {
        env: {
          HTTP_PROXY: url,
          HTTPS_PROXY: url,
          http_proxy: url,
          https_proxy: url,
          ALL_PROXY: url,
          all_proxy: url,
          NO_PROXY: "",
          no_proxy: "",
          // Node 24's own fetch and http follow the proxy variables only when told to.
          NODE_USE_ENV_PROXY: "1",
        },
        denials: active.denials,
        moreDenials: active.moreDenials,
      },
    };
  };
  return { limit, stop };
}

/** `run` with root's rights: as it is when the action is root, through `sudo -n` when it switches users with sudo. */
export function asPrivileged(sandbox: SessionSandbox | undefined, run: PrivilegedRun): PrivilegedRun {
  const isolation = sandbox?.isolation;
  return isolation?.kind === "user" && isolation.via === "sudo"
    ? (command, args) => run("sudo", ["-n", command, ...args])
    : run;
}
