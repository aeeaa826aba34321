import { test } from "node:test";
import assert from "node:assert/strict";
import { parseCommands } from "../../src/commands/parse-command.ts";
import { describeParseFailure, renderCommandHelp } from "../../src/commands/render-command-help.ts";

test("every /loom command line in a comment is read, with its stage", () => {
  const body =
    "Looks stuck.\n/loom retry build\n  /loom skip docs  \n/loom status\n/loom approve\n/loom help";
  assert.deepEqual(
    parseCommands(body).map((c) =>
      c.ok && "stage" in c ? `${c.command} ${c.stage.stageId}` : c.ok ? c.command : c.reason,
    ),
    ["retry build", "skip docs", "status", "approve", "help"],
  );
});

test("a stage may be qualified with its plan id when a pull request has several plans", () => {
  const [command] = parseCommands("/loom cancel PLAN-a/build");
  assert.ok(command?.ok && "stage" in command);
  assert.deepEqual(command.stage, { planId: "PLAN-a", stageId: "build" });
});

test("unknown commands, missing stages and extra words are refused with a reason", () => {
  assert.deepEqual(
    parseCommands("/loom frobnicate x\n/loom retry\n/loom status now\n/loom retry a b").map((c) =>
      c.ok ? "ok" : c.reason,
    ),
    ["unknown-command", "missing-stage", "unexpected-argument", "unexpected-argument"],
  );
});

test("/loom retry <stage> --only asks for that stage alone; any other word after the stage is refused", () => {
  const [only, other] = parseCommands("/loom retry build --only\n/loom retry build --all");
  assert.ok(only?.ok && "stage" in only);
  assert.deepEqual(
    { command: only.command, stage: only.stage.stageId, only: only.only },
    {
      command: "retry",
      stage: "build",
      only: true,
    },
  );
  assert.deepEqual(other?.ok ? "ok" : other?.reason, "unexpected-argument");
  assert.equal(parseCommands("/loom skip build --only")[0]?.ok, false);
});

test("/loom rerun affected is read; rerun with anything else is refused", () => {
  assert.deepEqual(
    parseCommands("/loom rerun affected\n/loom rerun\n/loom rerun everything").map((c) =>
      c.ok ? c.command : c.reason,
    ),
    ["rerun", "unexpected-argument", "unexpected-argument"],
  );
});

test("text that merely mentions loom, quotes a command or shows one in a code block is not a command", () => {
  const body = [
    "please run /loom retry build",
    "> /loom retry build",
    "```",
    "/loom retry build",
    "```",
    "/loomretry build",
    "`/loom retry build`",
  ].join("\n");
  assert.deepEqual(parseCommands(body), []);
});

test("a bare /loom asks for help", () => {
  assert.deepEqual(parseCommands("/loom"), [{ ok: true, command: "help", line: "/loom" }]);
});

test("the help reply lists the valid stages and is never read back as a command", () => {
  const failure = parseCommands("/loom retry")[0];
  assert.ok(failure !== undefined && !failure.ok);
  const reply = renderCommandHelp(
    [{ planId: "PLAN-x", stageIds: ["a", "b"] }],
    describeParseFailure(failure),
  );
  assert.match(reply, /`a`, `b`/);
  assert.match(reply, /needs a stage id/);
  assert.deepEqual(parseCommands(reply), []);
});

test("with several plans the help reply shows qualified stage ids", () => {
  const reply = renderCommandHelp([
    { planId: "PLAN-x", stageIds: ["a"] },
    { planId: "PLAN-y", stageIds: ["a"] },
  ]);
  assert.match(reply, /`PLAN-x\/a`/);
  assert.match(reply, /`PLAN-y\/a`/);
});

test("/loom approve takes one optional SHA, as written (checked against the head by the reducer)", () => {
  const [plain, named, quoted, extra] = parseCommands(
    "/loom approve\n/loom approve 1a2b3c4\n/loom approve `1a2b3c4d`\n/loom approve 1a2b3c4 now",
  );
  assert.deepEqual(plain, { ok: true, command: "approve", line: "/loom approve" });
  assert.ok(named?.ok && !("stage" in named));
  assert.equal(named.sha, "1a2b3c4");
  assert.ok(quoted?.ok && !("stage" in quoted));
  assert.equal(quoted.sha, "1a2b3c4d");
  assert.equal(extra?.ok ? "ok" : extra?.reason, "unexpected-argument");
});

test("/loom budget takes one amount to add, like +5 or +$2.50, and nothing else", () => {
  const amounts = parseCommands("/loom budget +5\n/loom budget +$2.50\n/loom budget `+0.5`").map((c) =>
    c.ok && c.command === "budget" ? c.amountUsd : null,
  );
  assert.deepEqual(amounts, [5, 2.5, 0.5]);
  for (const bad of [
    "/loom budget",
    "/loom budget 5",
    "/loom budget +0",
    "/loom budget -5",
    "/loom budget +1e3",
    "/loom budget +20000",
    "/loom budget +5 +5",
  ]) {
    const [command] = parseCommands(bad);
    assert.ok(command && !command.ok && command.reason === "bad-amount", bad);
    assert.match(describeParseFailure(command), /needs an amount to add, like `\+5`/);
  }
});

test("/loom merge takes a stage and may name the commit to merge; nothing more, and no other stage command takes one", () => {
  assert.deepEqual(parseCommands("/loom merge a\n/loom merge PLAN-x/a `c0ffee1`"), [
    { ok: true, command: "merge", stage: { planId: null, stageId: "a" }, line: "/loom merge a" },
    {
      ok: true,
      command: "merge",
      stage: { planId: "PLAN-x", stageId: "a" },
      line: "/loom merge PLAN-x/a `c0ffee1`",
      sha: "c0ffee1",
    },
  ]);
  assert.deepEqual(
    parseCommands("/loom merge\n/loom merge a c0ffee1 now\n/loom retry a c0ffee1").map((c) =>
      c.ok ? "ok" : c.reason,
    ),
    ["missing-stage", "unexpected-argument", "unexpected-argument"],
  );
  assert.match(
    renderCommandHelp([]),
    /`\/loom merge <stage> \[<sha>\]`: merge a stage that waits for a person/,
  );
});

test("/loom continue takes the rest of its line as the instructions, one pair of quotes removed", () => {
  const [quoted, curly, plain, qualified] = parseCommands(
    [
      '/loom continue c "also handle the empty case"',
      "/loom continue c \u201Cuse the new API\u201D",
      "/loom continue c keep the old flag working",
      "/loom continue PLAN-x/c 'two plans'",
    ].join("\n"),
  );
  assert.deepEqual(quoted, {
    ok: true,
    command: "continue",
    stage: { planId: null, stageId: "c" },
    line: '/loom continue c "also handle the empty case"',
    instructions: "also handle the empty case",
  });
  assert.equal(curly?.ok && "stage" in curly ? curly.instructions : null, "use the new API");
  assert.equal(plain?.ok && "stage" in plain ? plain.instructions : null, "keep the old flag working");
  assert.ok(qualified?.ok && "stage" in qualified);
  assert.deepEqual(
    [qualified.stage, qualified.instructions],
    [{ planId: "PLAN-x", stageId: "c" }, "two plans"],
  );
});

test("/loom continue with nothing after the stage takes the lines that follow, code blocks kept, up to the next command", () => {
  const body = [
    "/loom continue build",
    "The test fails with:",
    "```",
    "/loom this line is output, not a command",
    "```",
    "Fix it without touching the API.",
    "/loom status",
  ].join("\n");
  const commands = parseCommands(body);
  assert.deepEqual(
    commands.map((c) => (c.ok ? c.command : c.reason)),
    ["continue", "status"],
  );
  const [first] = commands;
  assert.ok(first?.ok && "stage" in first);
  assert.equal(
    first.instructions,
    "The test fails with:\n```\n/loom this line is output, not a command\n```\nFix it without touching the API.",
  );
});

test("/loom continue without instructions, or with too many, is refused with the reason; control characters are dropped", () => {
  const [none, quotesOnly, long, control] = parseCommands(
    [
      "/loom continue c",
      '/loom continue c ""',
      `/loom continue c ${"x".repeat(4001)}`,
      "/loom continue c fix\u0007 it",
    ].join("\n"),
  );
  assert.equal(none?.ok ? "ok" : none?.reason, "missing-instructions");
  assert.equal(quotesOnly?.ok ? "ok" : quotesOnly?.reason, "missing-instructions");
  assert.equal(long?.ok ? "ok" : long?.reason, "instructions-too-long");
  assert.ok(control?.ok && "stage" in control);
  assert.equal(control.instructions, "fix it");
  assert.ok(none !== undefined && !none.ok);
  assert.match(describeParseFailure(none), /needs instructions for the session/);
  assert.deepEqual(
    parseCommands("/loom continue").map((c) => (c.ok ? "ok" : c.reason)),
    ["missing-stage"],
  );
});

test("/loom amend takes a stage, a criterion's number as its check run shows it, and the rest of the line as the new command", () => {
  const parsed = parseCommands(
    [
      "/loom amend a 2 test -f a.txt",
      "/loom amend PLAN-x/a #1 `npm test -- --grep 'x'`",
      '/loom amend a 3 "make check"',
    ].join("\n"),
  );
  assert.deepEqual(
    parsed.map((c) => (c.ok && "stage" in c ? [c.stage.stageId, c.criterion, c.amendedCommand] : c)),
    [
      ["a", 2, "test -f a.txt"],
      ["a", 1, "npm test -- --grep 'x'"],
      ["a", 3, "make check"],
    ],
  );
});

test("/loom amend without a number or a command, or with a command over 1024 characters, is refused with the reason", () => {
  const lines = [
    "/loom amend",
    "/loom amend a",
    "/loom amend a 2",
    "/loom amend a two x",
    "/loom amend a 0 x",
  ];
  const parsed = parseCommands([...lines, `/loom amend a 1 ${"x".repeat(1025)}`].join("\n"));
  assert.deepEqual(
    parsed.map((c) => (c.ok ? "ok" : c.reason)),
    ["missing-stage", "bad-amendment", "bad-amendment", "bad-amendment", "bad-amendment", "bad-amendment"],
  );
  const failure = parsed[2];
  assert.ok(failure && !failure.ok);
  assert.match(describeParseFailure(failure), /needs the criterion's number .* and the new command/);
});

test("/loom reject takes a stage and nothing more", () => {
  assert.deepEqual(
    parseCommands("/loom reject a\n/loom reject\n/loom reject a now").map((c) =>
      c.ok && "stage" in c ? `${c.command} ${c.stage.stageId}` : c.ok ? c.command : c.reason,
    ),
    ["reject a", "missing-stage", "unexpected-argument"],
  );
});
