/**
 * The action's run mode in its own process, for the session-isolation test: started with canary
 * values in ACTIONS_RUNTIME_TOKEN and INPUT_GITHUB_TOKEN (they are in this process's
 * /proc/<pid>/environ, as in a real action step), it builds the session and check environments as
 * main.ts does, creates the sandbox (unless `--no-isolation`: the code before isolation), runs the
 * stage with the real Claude Code and prints one JSON line: the result, and which marked
 * background processes were alive when loom-result was uploaded.
 *
 * node session-isolation-driver.ts <sandbox-dir> <repo> [--no-isolation]
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import {
  createSessionSandbox,
  disposeSessionSandbox,
} from "../../action/src/isolation/create-session-sandbox.ts";
import { splitEnv } from "../../action/src/main.ts";
import { runStage } from "../../action/src/run-stage.ts";
import { RunStageInputs } from "../../action/src/run-stage-inputs.ts";
import { runSession } from "../../action/src/session/run-session.ts";
import { ProviderInputs, resolveProviderEnv } from "../../action/src/session/provider-env.ts";
import { RESULT_ARTIFACT } from "../../action/src/upload/artifact-port.ts";
import { CLAUDE_PATH, HOOKS_DIR } from "../support/fake-model-sandbox.ts";

export const SLEEP_MARK = "4242";

/** Processes whose command line is `sleep <SLEEP_MARK…>` (what the scripted session leaves behind). */
export function listMarkedSleepers(): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
        return (
          state !== "Z" && argv[0]?.endsWith("sleep") === true && argv[1]?.startsWith(SLEEP_MARK) === true
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function drive(): Promise<void> {
  const [dir = "", repo = "", flag] = process.argv.slice(2);
  const env = process.env;
  const provider = resolveProviderEnv(ProviderInputs.parse({ provider: "anthropic" }), env, existsSync);
  if (!provider.ok) throw new Error(provider.problems.join("\n"));
  const { sessionEnv, checkEnv } = splitEnv(env, provider.env);
  const tempDir = path.join(dir, "tmp");
  const sandbox = flag === "--no-isolation" ? undefined : await createSessionSandbox(tempDir, dir);
  let aliveAtUpload: number[] | null = null;
  const { result } = await runStage(
    RunStageInputs.parse({
      plan_path: "doc/plans/PLAN-demo.md",
      plan_id: "PLAN-demo",
      stage_id: "build",
      attempt: "1",
      branch: "main",
      silence_timeout_minutes: "1",
      check_timeout_minutes: "1",
      allowed_tools: "Read,Write,Edit,Bash",
      claude_path: CLAUDE_PATH,
    }),
    {
      workspace: repo,
      tempDir,
      sessionEnv,
      checkEnv,
      knownSecrets: [],
      hooks: { dir: HOOKS_DIR, extension: "ts", nodePath: process.execPath },
      ...(sandbox === undefined ? {} : { sandbox }),
      runSession,
      uploadArtifact: (name) => {
        if (name === RESULT_ARTIFACT) aliveAtUpload = listMarkedSleepers();
        return Promise.resolve();
      },
      loadPrevious: () => Promise.resolve({ notes: [] }),
      writeSummary: () => Promise.resolve(),
      log: (message, data) => process.stderr.write(`${message} ${JSON.stringify(data ?? {})}\n`),
      now: Date.now,
    },
  );
  const problems = sandbox === undefined ? [] : await disposeSessionSandbox(sandbox);
  const user = sandbox?.isolation.kind === "user" ? sandbox.isolation.user : null;
  process.stdout.write(`${JSON.stringify({ result, aliveAtUpload, user, problems })}\n`);
}

if (import.meta.main) await drive();
