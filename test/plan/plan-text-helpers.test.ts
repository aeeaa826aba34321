import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileWiringPattern } from "../../src/plan/compile-wiring-pattern.ts";
import { derivePlanId } from "../../src/plan/derive-plan-id.ts";
import { extractMetadata } from "../../src/plan/extract-metadata.ts";
import { extractPlanName } from "../../src/plan/extract-plan-name.ts";
import { editDistance, findClosestName } from "../../src/plan/find-closest-name.ts";
import { globsOverlap } from "../../src/plan/globs-overlap.ts";

describe("globsOverlap on the globs plans write", () => {
  const cases: [string, string, boolean][] = [
    ["src/{a,{b,c}}.ts", "src/c.ts", true],
    ["{a,b}/x", "b/x", true],
    [" src/a.ts ", "src/a.ts", true],
    ["src//a.ts", "src/a.ts", true],
    ["./src/", "src/x/y", true],
    ["**", "a/b/c", true],
    ["a/**/b", "a/b", true],
    ["a/**", "a", true],
    ["src/**/x.ts", "src/x.ts", true],
    ["a/**/c", "a/b", false],
    ["a/*", "**/b", true],
    ["a", "**/a", true],
    ["a/b", "a/b/c", false],
    ["src/*.ts", "src/a/b.ts", false],
    ["a*", "*b", true],
    ["a*.ts", "b*.ts", false],
    ["*.ts", "*.rs", false],
    ["x?y", "x*y", true],
    ["a*b?c", "ab*c", true],
    ["a*b?c", "ax*d", false],
    ["[ab]*", "c*", true],
    ["*[ab]", "*c", true],
    ["[!a].ts", "b.ts", true],
    ["[!a].ts", "a.ts", false],
    ["x[a?", "x[ab", true],
    ["a.t?", "axts", false],
    ["a+?", "aab", false],
    ["[z-a].ts", "b.ts", false],
  ];
  for (const [a, b, expected] of cases) {
    it(`${JSON.stringify(a)} and ${JSON.stringify(b)}: ${expected ? "overlap" : "disjoint"}`, () => {
      assert.equal(globsOverlap(a, b), expected);
      assert.equal(globsOverlap(b, a), expected, "symmetric");
    });
  }

  it("expands at most 32 brace alternatives", () => {
    const glob = "x{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}";
    assert.equal(globsOverlap(glob, "xacegik"), true);
    assert.equal(globsOverlap(glob, "xbdfhjl"), false);
  });
});

describe("findClosestName and editDistance", () => {
  it("allows one edit up to five characters, two beyond, none up to three", () => {
    assert.equal(findClosestName("fles", ["files"]), "files");
    assert.equal(findClosestName("fls", ["files"]), null);
    assert.equal(findClosestName("dependenc", ["dependencies"]), null);
    assert.equal(findClosestName("dependenci", ["dependencies"]), "dependencies");
    assert.equal(findClosestName("stage-type", ["stage_type"]), "stage_type");
  });

  it("prefers the closer candidate, then the earlier one", () => {
    assert.equal(findClosestName("modle", ["model", "mode"]), "model");
    assert.equal(findClosestName("modle", ["mode", "model"]), "mode");
    assert.equal(findClosestName("sandbx", ["sandbax", "sandbox"]), "sandbax");
    assert.equal(findClosestName("sandboxx", ["sandbxo", "sandbox"]), "sandbox");
  });

  it("counts inserts, deletes, replacements and swaps of neighbours, stopping past the limit", () => {
    assert.equal(editDistance("kitten", "sitting", 5), 3);
    assert.equal(editDistance("ab", "ba", 2), 1);
    assert.equal(editDistance("abcd", "badc", 3), 2);
    assert.equal(editDistance("abcd", "abdc", 0), 1);
    assert.equal(editDistance("abc", "", 1), 2);
    assert.equal(editDistance("abcdef", "ghijkl", 2), 3);
    assert.equal(editDistance("abcdef", "ghijkl", 6), 6);
    assert.equal(editDistance("", "", 0), 0);
    assert.equal(editDistance("abc", "abc", 2), 0);
  });
});

describe("compileWiringPattern", () => {
  const compiled = (pattern: string, literal?: boolean): string => {
    const result = compileWiringPattern(pattern, literal === undefined ? {} : { literal });
    return result.ok ? `/${result.regex.source}/${result.regex.flags}` : result.message;
  };

  it("turns every leading inline flag into a RegExp flag, each once", () => {
    assert.equal(compiled("(?ii)x"), "/x/i");
    assert.equal(compiled("(?ims)x"), "/x/ims");
    assert.equal(compiled("(?mi)x"), "/x/im");
    assert.match(compiled("a(?i)x"), /^Invalid regular expression: \/a\(\?i\)x\//);
    assert.equal(compiled("(?I)x"), 'inline flag "I" is not supported (use i, m or s)');
  });

  it("renames every (?P<name> group", () => {
    assert.equal(compiled("(?P<n>x)(?P<m>y)"), "/(?<n>x)(?<m>y)/");
  });

  it("matches a literal pattern as plain text, regex characters included", () => {
    const text = "a.b(c)/d[e]{2}|^$*+?\\";
    const result = compileWiringPattern(text, { literal: true });
    assert.ok(result.ok);
    assert.ok(result.regex.test(`x ${text} y`));
    assert.ok(!result.regex.test("aXb(c)/d[e]{2}|^$*+?\\"));
    assert.equal(compiled("(?i)x", false), "/x/i");
  });

  it("accepts a pattern of exactly 500 characters", () => {
    assert.equal(compileWiringPattern("a".repeat(500)).ok, true);
  });
});

describe("plan id and name", () => {
  it("the id is the file name without its last extension", () => {
    assert.equal(derivePlanId(".hidden"), ".hidden");
    assert.equal(derivePlanId("doc/PLAN-a.b.md"), "PLAN-a.b");
    assert.equal(derivePlanId("dir.v2/PLAN"), "PLAN");
    assert.equal(derivePlanId("doc\\plans\\PLAN-x.md"), "PLAN-x");
  });

  it("the name is the first '# ' heading, without repeated '# ' and a 'Plan:' prefix", () => {
    assert.equal(extractPlanName("# # Title"), "Title");
    assert.equal(extractPlanName("#  Plan:  x "), "x");
    assert.equal(extractPlanName("#Title\n# Real"), "Real");
    assert.equal(extractPlanName("# Planning"), "Planning");
    assert.equal(extractPlanName("#\tTab\n# y"), "y");
  });
});

describe("extractMetadata finds the fence between the markers", () => {
  it("skips a two-backtick run", () => {
    const text = "<!-- loom METADATA -->\n``yaml\nx\n``\n```yaml\nx: 1\n```\n<!-- END loom METADATA -->";
    const found = extractMetadata(text);
    assert.ok(found.ok);
    assert.equal(found.yaml, "x: 1");
    assert.equal(text.slice(found.yamlOffset, found.yamlOffset + 4), "x: 1");
  });

  it("reads a fence on one line", () => {
    const found = extractMetadata("<!-- loom METADATA -->```yaml x: 1```<!-- END loom METADATA -->");
    assert.ok(found.ok);
    assert.equal(found.yaml, "x: 1");
  });

  it("needs the whole word yaml before the END marker", () => {
    const found = extractMetadata("<!-- loom METADATA -->\n```ya<!-- END loom METADATA -->");
    assert.equal(found.ok ? "" : found.problem, "no-yaml-fence");
  });

  it("needs the closing fence before the END marker", () => {
    for (const text of [
      "<!-- loom METADATA -->\n```yaml<!-- END loom METADATA -->",
      "<!-- loom METADATA -->\n```yaml\nx: 1\n<!-- END loom METADATA -->\n```",
    ]) {
      const found = extractMetadata(text);
      assert.deepEqual(found.ok ? null : [found.problem, found.offset], ["no-closing-fence", 23]);
    }
  });
});
