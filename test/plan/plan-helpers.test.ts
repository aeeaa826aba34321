import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileWiringPattern } from "../../src/plan/compile-wiring-pattern.ts";
import { detectStageType } from "../../src/plan/detect-stage-type.ts";
import { globsOverlap } from "../../src/plan/globs-overlap.ts";
import { describeUnsafePath } from "../../src/plan/unsafe-path.ts";

describe("globsOverlap tells when two stages' files could touch the same path", () => {
  const cases: [string, string, boolean][] = [
    ["src/a.ts", "src/a.ts", true],
    ["src/a.ts", "src/b.ts", false],
    ["src/**", "src/deep/x.ts", true],
    ["src/**/*.ts", "src/api/*.ts", true],
    ["src/*.rs", "tests/*.rs", false],
    ["src/frontend/*.rs", "src/backend/*.rs", false],
    ["src/*.ts", "src/*.rs", false],
    ["src/*.ts", "src/index.*", true],
    ["src/", "src/x/y.ts", true],
    ["./README.md", "README.md", true],
    ["src/{a,b}.ts", "src/b.ts", true],
    ["src/{a,b}.ts", "src/c.ts", false],
    ["**/*.md", "doc/guide.md", true],
    ["src/file?.ts", "src/file1.ts", true],
    ["src/[ab].ts", "src/c.ts", false],
  ];
  for (const [a, b, expected] of cases) {
    it(`${a} and ${b}: ${expected ? "overlap" : "disjoint"}`, () => {
      assert.equal(globsOverlap(a, b), expected);
      assert.equal(globsOverlap(b, a), expected, "symmetric");
    });
  }
});

describe("compileWiringPattern reads patterns written for Rust's regex crate", () => {
  it("turns a leading (?i) into a flag and (?P<name>) into a named group", () => {
    const compiled = compileWiringPattern("(?i)fn (?P<name>main)");
    assert.ok(compiled.ok);
    assert.equal(compiled.regex.flags, "i");
    assert.equal(compiled.regex.exec("FN main")?.groups?.["name"], "main");
  });

  it("reads unicode classes such as \\p{Lu}", () => {
    const compiled = compileWiringPattern("^\\p{Lu}+$");
    assert.ok(compiled.ok);
    assert.ok(compiled.regex.test("ÄB"));
    assert.ok(!compiled.regex.test("ab"));
  });

  const invalid: [string, RegExp][] = [
    ["foo((", /Invalid regular expression/],
    ["(?x)a b", /inline flag "x" is not supported/],
    ["a".repeat(501), /501 characters; the limit is 500/],
  ];
  for (const [pattern, message] of invalid) {
    it(`refuses ${pattern.slice(0, 20)} with a message`, () => {
      const compiled = compileWiringPattern(pattern);
      assert.equal(compiled.ok, false);
      assert.match(compiled.ok ? "" : compiled.message, message);
    });
  }
});

describe("describeUnsafePath", () => {
  const cases: [string, string, boolean][] = [
    ["src/x.ts", ".", true],
    ["/etc/passwd", ".", false],
    ["C:\\x", ".", false],
    ["~/.ssh/id", ".", false],
    ["../x", ".", false],
    ["a/../b", ".", true],
    ["../.github/ci.yml", "loom", true],
    ["../../x", "loom", false],
    ["foo..bar/x", ".", true],
  ];
  for (const [path, workingDir, safe] of cases) {
    it(`${path} from ${workingDir} is ${safe ? "inside" : "outside"} the repository`, () => {
      assert.equal(describeUnsafePath(path, workingDir) === null, safe);
    });
  }
});

describe("detectStageType guesses like the reference CLI", () => {
  const cases: [string, string, string][] = [
    ["knowledge-bootstrap", "Bootstrap", "knowledge"],
    ["kd", "Knowledge Distill", "knowledge-distill"],
    ["knowledge-distill", "x", "knowledge-distill"],
    ["final", "Integration Verify", "integration-verify"],
    ["integration-verify", "x", "integration-verify"],
    ["integration", "Integration", "standard"],
    ["build", "Build", "standard"],
  ];
  for (const [id, name, type] of cases) {
    it(`${id} / ${name} → ${type}`, () => assert.equal(detectStageType(id, name), type));
  }
});
