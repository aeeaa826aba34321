import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DEFAULT_CAPS } from "../../src/config/default-caps.ts";
import type { CheckRunRecord, CommentRecord } from "../emulator/emulator-state.ts";
import { dispatchesOf, type PullRecord } from "./e2e-requests.ts";
import { BOT, startE2E, type E2E } from "./harness.ts";
import { planText, scriptStages, type StageScript } from "./model-script.ts";

const PLAN_PATH = "doc/plans/PLAN-caps.md";
// `small` runs at loom's default caps; `big` asks for $95 sessions. Before anything ran the plan is
// forecast at its caps, $10 + $95 = $105: over loom's default $100 budget.
const PLAN = planText(
  "Caps",
  `
- id: small
  name: Small
  description: Record the command line the session runs with in caps-small.txt
  acceptance: ["test -s caps-small.txt"]
- id: big
  name: Big
  description: Record the command line the session runs with in caps-big.txt
  max_budget_usd: 95
  acceptance: ["test -s caps-big.txt"]
`,
);

/**
 * The session itself records the caps its Claude Code process was started with: from the Bash
 * tool's shell up the process tree to the process whose command line carries `--output-format`
 * (Claude Code), the flags `--max-budget-usd` and `--max-turns` with their values, one a line.
 * What the real binary got, not what the action meant to pass.
 */
function recordCaps(file: string): StageScript {
  const command = [
    "pid=$$; found=no",
    'while [ "$pid" -gt 1 ]; do',
    `  if tr '\\0' '\\n' < /proc/$pid/cmdline | grep -qx -- --output-format; then`,
    `    tr '\\0' '\\n' < /proc/$pid/cmdline | grep -A1 -x -e --max-budget-usd -e --max-turns > ${file}; found=yes; break`,
    "  fi",
    "  pid=$(awk '{print $4}' /proc/$pid/stat)",
    "done",
    `[ "$found" = yes ] || echo "no Claude Code process above the shell" > ${file}`,
  ].join("\n");
  return () => [
    { blocks: [{ type: "tool_use", name: "Bash", input: { command, description: "Record the caps" } }] },
    { blocks: [{ type: "text", text: "Done." }] },
  ];
}

/** `--max-budget-usd 10\n--max-turns 200` → `{ "--max-budget-usd": "10", "--max-turns": "200" }`. */
function readFlags(text: string | null): Record<string, string> {
  const lines = (text ?? "").trim().split("\n");
  const flags: Record<string, string> = {};
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("--") && line !== "--") flags[line] = lines[i + 1]!;
  }
  return flags;
}

describe(
  "without .github/loom.yml money is capped: loom's default caps reach Claude Code, and a plan forecast past the default budget waits for a writer",
  { timeout: 240_000 },
  () => {
    let e2e: E2E;
    let pull: PullRecord;
    let heldPlan: CheckRunRecord | undefined;
    let heldStage: CheckRunRecord | undefined;
    let heldComment: string | undefined;
    let dispatchedWhileHeld: string[] = [];
    let readerReply: CommentRecord | undefined;
    const stagesDispatched = () => dispatchesOf(e2e.emulator.requests).map((d) => d.stageId);

    before(async () => {
      e2e = await startE2E({
        permissions: { alice: "write", bob: "read" },
        script: scriptStages({ small: recordCaps("caps-small.txt"), big: recordCaps("caps-big.txt") }),
      });
      // A repository that never wrote a .github/loom.yml.
      await e2e.emulator
        .as("alice")
        .push("main", { ".github/loom.yml": null }, { message: "No loom config" });
      pull = await e2e.openPlan({ files: { [PLAN_PATH]: PLAN } });
      // Copies: loom completes these runs as superseded once its merges move the head.
      heldPlan = structuredClone(
        await e2e.waitFor("the plan's check run to wait for budget", async () =>
          (await e2e.checkRuns(pull)).find(
            (r) => r.name === "loom: PLAN-caps" && r.conclusion === "action_required",
          ),
        ),
      );
      heldStage = structuredClone(
        await e2e.waitFor("small's check run to say it waits for budget", async () =>
          (await e2e.checkRuns(pull)).find(
            (r) => r.name === "loom: small" && /Waiting for budget/.test(r.output.summary ?? ""),
          ),
        ),
      );
      heldComment = await e2e.waitFor("the status comment to say the plan waits", () => {
        const body = e2e.statusComment(pull)?.body;
        return body?.includes("waits for `/loom budget +<usd>`") ? body : undefined;
      });
      const bobs = await e2e.emulator.as("bob").comment(pull.number, "/loom budget +10");
      readerReply = await e2e.waitFor("the reply to the reader", () =>
        e2e.emulator.state.comments.find((c) => c.user === BOT && c.body.includes("@bob") && c.id > bobs.id),
      );
      dispatchedWhileHeld = stagesDispatched();
      await e2e.emulator.as("alice").comment(pull.number, "/loom budget +10");
      await e2e.waitForPlanEnd(pull, "PLAN-caps", 2, 180_000);
    });
    after(async () => {
      await e2e?.close();
    });

    it("holds the first wave before any session: action_required on the plan's check run, the reason on the stage's and in the comment", () => {
      assert.equal(heldPlan?.output.title, "Waiting for budget: 0/2 stages merged");
      const summary = heldPlan?.output.summary ?? "";
      assert.ok(
        summary.includes(
          `**Budget:** $0.00 spent of $100.00 ($100.00 loom's default) · forecast $105.00 ($0.00 spent, 2 stages ahead at their session caps until a stage completes)`,
        ),
        summary,
      );
      assert.ok(
        summary.includes(
          "**Session caps:** $10.00 (loom's default) and 200 turns (loom's default) a session; `big`: $95.00 (the stage) and 200 turns (loom's default)",
        ),
        summary,
      );
      assert.match(
        heldStage?.output.summary ?? "",
        /\*\*Waiting for budget:\*\* the plan's forecast is \$105\.00 .*, over its \$100\.00 budget/,
      );
      assert.match(heldComment ?? "", /\*\*Budget:\*\* \$0\.00 spent of \$100\.00 · forecast \$105\.00/);
    });

    it("refuses a reader's /loom budget: nothing starts", () => {
      assert.deepEqual(dispatchedWhileHeld, []);
      assert.match(readerReply?.body ?? "", /did nothing: @bob has read access; loom needs write or above/);
    });

    it("starts the whole first wave once a writer raises the budget, and the plan ends green", async () => {
      assert.deepEqual(stagesDispatched().sort(), ["big", "small"]);
      const plan = (await e2e.checkRuns(pull)).find((r) => r.name === "loom: PLAN-caps");
      assert.equal(plan?.conclusion, "success", e2e.describe());
      assert.match(
        plan?.output.summary ?? "",
        /\$100\.00 loom's default \+ \$10\.00 added with `\/loom budget`/,
      );
    });

    it("runs each Claude Code session with the caps in force: loom's defaults, or the stage's own", async () => {
      assert.deepEqual(readFlags(await e2e.readFile(pull.headRef, "caps-small.txt")), {
        "--max-budget-usd": String(DEFAULT_CAPS.sessionBudgetUsd),
        "--max-turns": String(DEFAULT_CAPS.sessionTurns),
      });
      assert.deepEqual(readFlags(await e2e.readFile(pull.headRef, "caps-big.txt")), {
        "--max-budget-usd": "95",
        "--max-turns": String(DEFAULT_CAPS.sessionTurns),
      });
    });
  },
);
