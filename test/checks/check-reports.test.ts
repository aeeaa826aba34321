import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { resolveInside } from "../../action/src/checks/check-context.ts";
import { evaluateRun } from "../../action/src/checks/evaluate-run.ts";
import { findStub } from "../../action/src/checks/find-stub.ts";
import type { CommandRun } from "../../action/src/checks/run-command.ts";
import { findDeadCodeLines } from "../../action/src/checks/run-dead-code-check.ts";
import { tailOutput } from "../../action/src/checks/tail-output.ts";
import { OUTPUT_TAIL_MAX } from "../../src/artifacts/stage-result.ts";

const run = (overrides: Partial<CommandRun> = {}): CommandRun => ({
  exitCode: 0,
  stdout: "",
  stderr: "",
  timedOut: false,
  durationMs: 5,
  ...overrides,
});

describe("evaluateRun: a command's success criteria, each failure a sentence", () => {
  it("passes exit code 0 with no criteria", () => {
    assert.deepEqual(evaluateRun(run(), {}, 1000), { passed: true, failures: [] });
  });

  it("judges the exit code against exit_code, 0 by default", () => {
    assert.deepEqual(evaluateRun(run({ exitCode: 3 }), {}, 1000), {
      passed: false,
      failures: ["exit code 3, expected 0"],
    });
    assert.deepEqual(evaluateRun(run({ exitCode: 4 }), { exit_code: 4 }, 1000), {
      passed: true,
      failures: [],
    });
    assert.deepEqual(evaluateRun(run({ exitCode: 0 }), { exit_code: 1 }, 1000).failures, [
      "exit code 0, expected 1",
    ]);
  });

  it("says 'none' for a process killed by a signal", () => {
    assert.deepEqual(evaluateRun(run({ exitCode: null }), {}, 1000).failures, ["exit code none, expected 0"]);
  });

  it("reports a timeout in whole seconds instead of the exit code", () => {
    assert.deepEqual(evaluateRun(run({ exitCode: null, timedOut: true }), {}, 1500).failures, [
      "timed out after 2 s (process group killed)",
    ]);
  });

  it("reports a shell that could not start instead of a timeout or exit code", () => {
    assert.deepEqual(
      evaluateRun(run({ exitCode: null, timedOut: true, spawnError: "spawn bash ENOENT" }), {}, 1000)
        .failures,
      ["could not start: spawn bash ENOENT"],
    );
  });

  it("checks every output criterion and lists every failure in order", () => {
    const criteria = {
      exit_code: 0,
      stdout_contains: ["ok", "done"],
      stdout_not_contains: ["panic", "warn"],
      stderr_empty: true,
      stderr_contains: ["note", "hint"],
    };
    const evaluation = evaluateRun(
      run({ exitCode: 1, stdout: "ok, warn", stderr: "note\n" }),
      criteria,
      1000,
    );
    assert.deepEqual(evaluation, {
      passed: false,
      failures: [
        "exit code 1, expected 0",
        'stdout does not contain "done"',
        'stdout contains "warn"',
        "stderr is not empty",
        'stderr does not contain "hint"',
      ],
    });
  });

  it("counts whitespace-only stderr as empty, and ignores stderr unless stderr_empty is true", () => {
    assert.equal(evaluateRun(run({ stderr: " \n\t" }), { stderr_empty: true }, 1000).passed, true);
    assert.equal(evaluateRun(run({ stderr: "warning" }), { stderr_empty: false }, 1000).passed, true);
    assert.equal(evaluateRun(run({ stderr: "warning" }), {}, 1000).passed, true);
  });

  it("passes when every output criterion holds", () => {
    const criteria = { stdout_contains: ["ok"], stdout_not_contains: ["panic"], stderr_contains: ["note"] };
    assert.deepEqual(evaluateRun(run({ stdout: "all ok", stderr: "a note" }), criteria, 1000), {
      passed: true,
      failures: [],
    });
  });
});

describe("tailOutput: what a person reads of a check's output", () => {
  it("puts failures first, then stderr and stdout, each labelled and trimmed at the end", () => {
    assert.equal(
      tailOutput(
        { failures: ["exit code 1, expected 0", "stderr is not empty"], stdout: "out\n\n", stderr: "err\n" },
        [],
      ),
      "exit code 1, expected 0\nstderr is not empty\n--- stderr ---\nerr\n--- stdout ---\nout",
    );
  });

  it("leaves out empty and whitespace-only parts", () => {
    assert.equal(tailOutput({ failures: [], stdout: "  \n", stderr: "" }, []), "");
    assert.equal(tailOutput({ stdout: "  x" }, []), "--- stdout ---\n  x");
    assert.equal(tailOutput({ stderr: "e", stdout: "\n" }, []), "--- stderr ---\ne");
  });

  it("redacts known secrets", () => {
    assert.equal(
      tailOutput({ failures: ["token=hunter2-secret-value"] }, ["hunter2-secret-value"]),
      "token=[REDACTED]",
    );
  });

  it("cuts long output to exactly the limit, keeping the failures and the end of the output", () => {
    const stdout = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\n");
    const text = tailOutput({ failures: ["exit code 1, expected 0"], stdout }, []);
    assert.equal(text.length, OUTPUT_TAIL_MAX);
    assert.ok(text.startsWith("exit code 1, expected 0\n… (cut) …\n"), text.slice(0, 60));
    assert.ok(text.endsWith("line 1999"));
  });

  it("keeps no head when the failures alone take half the room or more", () => {
    const failures = ["f".repeat(60)];
    const text = tailOutput({ failures, stdout: "o".repeat(200) }, [], 120);
    assert.equal(text, `\n… (cut) …\n${"o".repeat(120 - "\n… (cut) …\n".length)}`);
    const kept = tailOutput({ failures: ["f".repeat(59)], stdout: "o".repeat(200) }, [], 120);
    assert.ok(kept.startsWith(`${"f".repeat(59)}\n… (cut) …\n`));
    assert.equal(kept.length, 120);
  });

  it("redacts the kept head and the tail of a cut output", () => {
    const secret = "hunter2-secret-value";
    const text = tailOutput(
      { failures: [`bad ${secret}`], stdout: `${"o".repeat(300)} ${secret}` },
      [secret],
      100,
    );
    assert.ok(text.startsWith("bad [REDACTED]\n… (cut) …\n"), text);
    assert.ok(text.endsWith(" [REDACTED]"), text);
    assert.doesNotMatch(text, /hunter2/);
  });

  it("cuts output without failures with the marker alone at the front", () => {
    const text = tailOutput({ stdout: "x".repeat(500) }, [], 100);
    assert.equal(text.length, 100);
    assert.ok(text.startsWith("\n… (cut) …\nxxx"));
  });
});

describe("findStub: a file that only pretends to be implemented", () => {
  const cases: [string, string, string | null][] = [
    ["real code", "export const x = 1;\n", null],
    ["an empty file", "", "the file is empty"],
    ["a whitespace-only file", " \n\t\n", "the file is empty"],
    ["a binary file with a TODO in it", "\u0000TODO", null],
    ["Rust todo!", "fn f() {\n  todo!()\n}", "contains todo!() at line 2"],
    ["Rust todo! with a space", 'fn f() { todo! ("x") }', "contains todo!() at line 1"],
    ["Rust unimplemented!", "\n\nfn f() { unimplemented!() }", "contains unimplemented!() at line 3"],
    [
      "Rust panic not implemented",
      'panic!("not implemented")',
      'contains panic!("not implemented") at line 1',
    ],
    [
      "Rust panic not yet implemented",
      'x\npanic!( "Not yet implemented: y")',
      'contains panic!("not implemented") at line 2',
    ],
    ["a real panic", 'panic!("index out of range")', null],
    [
      "JS throw not implemented",
      "throw new Error('not implemented')",
      'contains throw new Error("not implemented") at line 1',
    ],
    [
      "JS throw not yet implemented",
      "throw new Error(`Not yet implemented`)",
      'contains throw new Error("not implemented") at line 1',
    ],
    [
      "Python NotImplementedError",
      "def f():\n    raise NotImplementedError",
      "contains raise NotImplementedError at line 2",
    ],
    ["a TODO comment", "a\nb\n// TODO: c", "contains TODO at line 3"],
    ["a FIXME comment", "# FIXME later", "contains FIXME at line 1"],
    ["words that only contain TODO", "const TODOS = []; mytodo!(); FIXMES", null],
    ["the first marker wins", "// FIXME\ntodo!()", "contains todo!() at line 2"],
  ];
  for (const [name, text, expected] of cases) {
    it(`${name} → ${String(expected)}`, () => assert.equal(findStub(text), expected));
  }
});

describe("findDeadCodeLines: compiler warnings about dead code", () => {
  const output = [
    "warning: function `old` is never used",
    "warning: field `x` is never read",
    "warning: unused import: `y`",
    "compiling foo",
    "warning: unused variable `z` (allowed)",
  ].join("\n");

  it("uses the default patterns when the plan names none", () => {
    assert.deepEqual(findDeadCodeLines(output, { command: "cargo build" }), [
      "warning: function `old` is never used",
      "warning: field `x` is never read",
      "warning: unused import: `y`",
      "warning: unused variable `z` (allowed)",
    ]);
  });

  it("uses the plan's fail and ignore patterns as plain substrings", () => {
    assert.deepEqual(
      findDeadCodeLines(output, {
        command: "cargo build",
        fail_patterns: ["unused"],
        ignore_patterns: ["(allowed)"],
      }),
      ["warning: unused import: `y`"],
    );
  });
});

describe("resolveInside: stage paths stay in the checkout", () => {
  it("resolves a path below the checkout, and the checkout itself", () => {
    assert.equal(resolveInside("/ws/repo", "pkg", "src/x.ts"), "/ws/repo/pkg/src/x.ts");
    assert.equal(resolveInside("/ws/repo/", "pkg/.."), "/ws/repo");
    assert.equal(resolveInside("/ws/repo", "."), "/ws/repo");
  });

  it("refuses a path that leaves it, also into a folder whose name starts the same", () => {
    assert.equal(resolveInside("/ws/repo", "../repo-other/x"), null);
    assert.equal(resolveInside("/ws/repo", "pkg", "../../x"), null);
    assert.equal(resolveInside("/ws/repo", "/etc/passwd"), null);
  });
});
