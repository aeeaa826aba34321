import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { describeDomainProblem } from "../../src/plan/describe-domain-problem.ts";
import { describeGlobProblem } from "../../src/plan/describe-glob-problem.ts";

/* The reference checks sandbox globs with the Rust crate glob 0.3.3 (`Pattern::new`) and domains with
 * its own `validate_domain_pattern`; these tables follow those functions case by case. */

const WILDCARDS = "wildcards are either regular `*` or recursive `**`";
const RECURSIVE = "recursive wildcards must form a single path component";
const RANGE = "invalid range pattern";

describe("sandbox globs are refused where the reference's glob library refuses them", () => {
  const valid = [
    "**",
    "a/**",
    "**/b",
    "a/**/b",
    "**/**",
    "*.rs",
    "~/.ssh/**",
    "?",
    "[abc]",
    "[!a]",
    "[]]",
    "[!]]",
    "src/[a-z]*.ts",
    "ü/**",
  ];
  for (const glob of valid)
    it(`accepts ${JSON.stringify(glob)}`, () => assert.equal(describeGlobProblem(glob), null));

  const invalid: [string, string, number][] = [
    ["***", WILDCARDS, 2],
    ["a/***", WILDCARDS, 4],
    ["a**", RECURSIVE, 0],
    ["src/a**/b", RECURSIVE, 4],
    ["**a", RECURSIVE, 2],
    ["a/**b", RECURSIVE, 4],
    ["[abc", RANGE, 0],
    ["[]", RANGE, 0],
    ["[!]", RANGE, 0],
    ["[!ab", RANGE, 0],
    ["x[", RANGE, 1],
    ["éé[", RANGE, 2],
  ];
  for (const [glob, message, position] of invalid)
    it(`refuses ${JSON.stringify(glob)}: ${message} near ${position}`, () =>
      assert.equal(describeGlobProblem(glob), `${message} (near position ${position})`));
});

describe("sandbox domains are refused where the reference refuses them", () => {
  for (const domain of [
    "github.com",
    "*.npmjs.org",
    "localhost",
    "xn--bcher-kva.example",
    "bücher.de",
    "127.0.0.1",
    "*",
  ])
    it(`accepts ${JSON.stringify(domain)}`, () => assert.equal(describeDomainProblem(domain), null));
  const invalid: [string, string][] = [
    ["", "domain cannot be empty"],
    ["git hub.com", "domain cannot contain spaces"],
    ["github.com:443", "invalid characters in domain"],
    ["https://github.com", "invalid characters in domain"],
    ["a_b.com", "invalid characters in domain"],
    ["\tgithub.com", "invalid characters in domain"],
  ];
  for (const [domain, message] of invalid)
    it(`refuses ${JSON.stringify(domain)}: ${message}`, () =>
      assert.equal(describeDomainProblem(domain), message));
});
