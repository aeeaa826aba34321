import { execFile } from "node:child_process";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { refuseUnmodelled, StandInFailed, type StandIn, type StandInStep } from "./stand-ins.ts";

const exec = promisify(execFile);
const USES = "actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8";

/** actions/checkout v5.0.0's inputs and defaults (its action.yml). */
const INPUTS = {
  repository: "${{ github.repository }}",
  ref: "",
  token: "${{ github.token }}",
  "ssh-key": "",
  "ssh-known-hosts": "",
  "ssh-strict": "true",
  "ssh-user": "git",
  "persist-credentials": "true",
  path: "",
  clean: "true",
  filter: "",
  "sparse-checkout": "",
  "sparse-checkout-cone-mode": "true",
  "fetch-depth": "1",
  "fetch-tags": "false",
  "show-progress": "true",
  lfs: "false",
  submodules: "false",
  "set-safe-directory": "true",
  "github-server-url": "",
};
const MODELLED = [
  "repository",
  "ref",
  "token",
  "persist-credentials",
  "path",
  "clean",
  "fetch-depth",
  "fetch-tags",
  "show-progress",
  "set-safe-directory",
];

async function git(cwd: string, args: string[], step: StandInStep): Promise<string> {
  step.commands.log(`[command]/usr/bin/git ${args.join(" ")}`);
  try {
    return (await exec("git", args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } })).stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new StandInFailed(`git ${args[0] === "-c" ? args[2] : args[0]} failed: ${stderr.trim()}`, {
      cause: error,
    });
  }
}

/**
 * actions/checkout v5 against the emulator, as the real one works: `git init`, the job token as an
 * `AUTHORIZATION` extra header in the local config, a fetch of every branch and tag (`fetch-depth: 0`)
 * or of the ref at that depth, `checkout -B <branch>` or the tag; "A branch or tag with the name 'x'
 * could not be found" when the ref is neither. With `persist-credentials: false` the header is removed
 * once the checkout is done; otherwise it stays for the job's later steps (a push) and the post step
 * removes it.
 */
export const checkoutStandIn: StandIn = {
  inputs: INPUTS,
  async main(step) {
    const { inputs } = step;
    refuseUnmodelled(USES, inputs, INPUTS, MODELLED);
    const into = path.resolve(step.workspace, inputs["path"] ?? "");
    const url = step.cloneUrl(inputs["repository"] ?? "");
    const header = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${inputs["token"] ?? ""}`).toString("base64")}`;
    step.commands.addMask(Buffer.from(`x-access-token:${inputs["token"] ?? ""}`).toString("base64"));
    const key = `http.${new URL(url).origin}/.extraheader`;
    await mkdir(into, { recursive: true });
    await git(into, ["init", "--quiet", into], step);
    await git(into, ["remote", "add", "origin", url], step);
    await git(into, ["config", "--local", "gc.auto", "0"], step);
    await git(into, ["config", "--local", key, header], step);
    const depth = Number(inputs["fetch-depth"] ?? "1");
    const given = inputs["ref"] ?? "";
    // No ref: the commit and ref of the event that started the run (workflow_dispatch: its ref).
    const ref = given === "" ? (step.env["GITHUB_REF"] ?? "") : given;
    const sha = given === "" ? (step.env["GITHUB_SHA"] ?? "") : /^[0-9a-f]{40}$/.test(given) ? given : "";
    const name = ref.replace(/^refs\/(heads|tags)\//, "");
    const refspecs = sha
      ? [`+${sha}:refs/remotes/origin/${name}`]
      : depth === 0
        ? ["+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"]
        : [`+refs/heads/${name}*:refs/remotes/origin/${name}*`, `+refs/tags/${name}*:refs/tags/${name}*`];
    const fetchFlags = depth === 0 ? ["--prune"] : ["--no-tags", "--prune", `--depth=${depth}`];
    await git(
      into,
      ["-c", "protocol.version=2", "fetch", ...fetchFlags, "--no-recurse-submodules", "origin", ...refspecs],
      step,
    );
    const branch = (await git(into, ["branch", "--list", "--remote", `origin/${name}`], step)).trim();
    const tag = branch === "" ? (await git(into, ["tag", "--list", name], step)).trim() : "";
    if (sha && /^[0-9a-f]{40}$/.test(given)) await git(into, ["checkout", "--quiet", "--force", sha], step);
    else if (branch !== "")
      await git(into, ["checkout", "--quiet", "--force", "-B", name, `refs/remotes/origin/${name}`], step);
    else if (tag !== "") await git(into, ["checkout", "--quiet", "--force", `refs/tags/${name}`], step);
    else throw new StandInFailed(`A branch or tag with the name '${name}' could not be found`);
    const commit = (await git(into, ["rev-parse", "HEAD"], step)).trim();
    step.commands.setOutput("ref", ref);
    step.commands.setOutput("commit", commit);
    step.commands.saveState("repositoryPath", into);
    if (inputs["persist-credentials"] !== "true")
      await git(into, ["config", "--local", "--unset-all", key], step);
    else step.commands.saveState("credentialsKey", key);
  },
  async post(step) {
    const into = step.state["repositoryPath"];
    const key = step.state["credentialsKey"];
    if (into && key)
      await git(into, ["config", "--local", "--unset-all", key], step).catch((error: unknown) =>
        step.commands.log(String(error)),
      );
  },
};
