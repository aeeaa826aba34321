import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, it } from "node:test";
import { REPO_ROOT } from "../cli/run-loom.ts";

const PAGES = [
  "README.md",
  "BENCHMARKS.md",
  "CHANGELOG.md",
  ...readdirSync(join(REPO_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a page's headings (outside fenced blocks). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (heading?.[1] !== undefined) anchors.add(headingAnchor(heading[1]));
  }
  return anchors;
}

/** Relative links `[text](target)` of a page, with their line numbers. */
function linksOf(markdown: string): { target: string; line: number }[] {
  return markdown
    .split("\n")
    .flatMap((text, index) =>
      [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => ({ target: m[1] ?? "", line: index + 1 })),
    )
    .filter(({ target }) => !/^[a-z]+:/.test(target));
}

describe("the links of README.md, BENCHMARKS.md, CHANGELOG.md and docs/", () => {
  it("headingAnchor makes GitHub's anchors", () => {
    assert.equal(headingAnchor("The App's environment"), "the-apps-environment");
    assert.equal(headingAnchor("`.github/loom.yml`"), "githubloomyml");
    assert.equal(headingAnchor("Try it in 5 minutes"), "try-it-in-5-minutes");
  });

  it("each relative link names a file that exists, and a heading in it when it has an anchor", () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(join(REPO_ROOT, page), "utf8");
      for (const { target, line } of linksOf(text)) {
        const [path = "", anchor] = target.split("#");
        const file = path === "" ? page : normalize(join(dirname(page), path));
        if (!existsSync(join(REPO_ROOT, file))) broken.push(`${page}:${line} ${target}: no ${file}`);
        else if (anchor !== undefined && file.endsWith(".md")) {
          const anchors = anchorsOf(readFileSync(join(REPO_ROOT, file), "utf8"));
          if (!anchors.has(anchor))
            broken.push(`${page}:${line} ${target}: no heading #${anchor} in ${file}`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });
});
