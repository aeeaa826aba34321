import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, it, before } from "node:test";
import { ROOT } from "./npm-start.ts";
import { CLASH_RESOLVED } from "./sample-plans.ts";

/** `npm run demo` as the README shows it, on a terminal that takes colours (FORCE_COLOR=1). */
function runDemo(): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "demo"], {
      cwd: ROOT,
      env: { ...process.env, FORCE_COLOR: "1", NO_COLOR: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), 280_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

describe("npm run demo, as the README shows it", { timeout: 300_000 }, () => {
  let code: number | null;
  let out: string;
  let plain: string;
  before(async () => {
    ({ code, out } = await runDemo());
    plain = out.replace(ANSI, "");
  });

  it("runs the sample plan to green and exits 0", () => {
    assert.equal(code, 0, out);
    assert.match(plain, /loom: PLAN-clash\s+success/);
  });

  it("prints each stage's tokens and cost and the plan's total", () => {
    for (const stage of ["a", "left", "right", "join"]) {
      assert.match(
        plain,
        new RegExp(
          `\\n  ${stage}\\s+completed, merged\\s+\\d+\\s+\\d+\\s+[0-9.]+k?\\s+[0-9.]+k?\\s+\\S+\\s+\\S+\\s+\\$[0-9.]+\\n`,
        ),
        `the cost row of ${stage}`,
      );
    }
    assert.match(plain, /\n {2}plan total\s+\d+\s+\d+\s+[0-9.]+k?\s+[0-9.]+k?\s+\S+\s+\S+\s+\$[0-9.]+\n/);
  });

  it("colours the statuses on a terminal", () => {
    const green = (text: string) => `\u001b[32m${text}\u001b[39m`;
    assert.ok(out.includes(green("completed, merged")), "merged stages in green");
    assert.ok(out.includes(green("success")), "a successful check run in green");
  });

  it("shows the second of the two parallel merges conflict, a merge session for that stage, then its merge", () => {
    const conflict = /merge conflict \(409\) loom\/pr-1\/PLAN-clash\/(left|right) → feature\/plan\n/.exec(
      plain,
    );
    assert.ok(conflict, plain);
    const stage = conflict[1] ?? "";
    // The timeline prints what the emulator saw as it saw it: the dispatch of the merge session
    // can come in the same instant as the 409; the stage's merge comes after its session ran.
    const session = plain.indexOf(`loom dispatched stage ${stage}, attempt 2 (merge session)`);
    const merged = plain.lastIndexOf(`merged loom/pr-1/PLAN-clash/${stage} → feature/plan`);
    assert.ok(session >= 0, `a merge session was dispatched for the conflicting stage\n${plain}`);
    assert.ok(merged > session, "the stage merged after its merge session");
    assert.match(
      plain,
      new RegExp(`\\n {2}${stage}\\s+completed, merged\\s+2\\s`),
      "two sessions of that stage",
    );
  });

  it("ends with both values resolved on the pull request's branch, and no runner error", () => {
    assert.ok(plain.includes(`feature/plan:settings.txt now reads:\n${CLASH_RESOLVED}`), plain);
    assert.doesNotMatch(plain, /runner error/);
  });

  it("lists the files the pull request now changes, the plan archived as DONE-PLAN-clash.md", () => {
    assert.match(
      plain,
      /files the pull request changes \(feature\/plan\)\n {2}added doc\/plans\/DONE-PLAN-clash\.md\n/,
    );
    assert.match(plain, /\n {2}added settings\.txt\n/);
  });
});
