import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { extractDocCommands, normalizeCommand } from "./extract-doc-commands.ts";

const texts = (markdown: string) => extractDocCommands(markdown, "x.md").map((c) => c.text);

describe("extractDocCommands: the commands a page shows", () => {
  it("takes every line of sh, bash and shell blocks, without comments, with their line numbers", () => {
    const page = [
      "# Title",
      "",
      "```sh",
      "npm run demo          # the demo",
      "# a comment line",
      "",
      "node bin/loom.js   --version",
      "```",
      "```bash",
      "npm test",
      "```",
    ].join("\n");
    assert.deepEqual(
      extractDocCommands(page, "x.md").map((c) => [c.text, c.line, c.from]),
      [
        ["npm run demo", 4, "block"],
        ["node bin/loom.js --version", 7, "block"],
        ["npm test", 10, "block"],
      ],
    );
  });

  it("splits && into separate commands and joins backslash continuations", () => {
    assert.deepEqual(texts("```sh\nnpm ci && npm start\nnode bin/loom.js validate \\\n  examples\n```\n"), [
      "npm ci",
      "npm start",
      "node bin/loom.js validate examples",
    ]);
  });

  it("reads blocks indented in a list item", () => {
    assert.deepEqual(texts("1. Start it:\n\n   ```sh\n   docker compose up -d\n   ```\n"), [
      "docker compose up -d",
    ]);
  });

  it("takes a console block's $ lines with the output shown under each", () => {
    const [first, second, ...rest] = extractDocCommands(
      "```console\n$ npx loom graph p.md\ngraph TD\n  s0\n$ node bin/loom.js --version\nloom 1.0.0\n```\n",
      "x.md",
    );
    assert.deepEqual(rest, []);
    assert.deepEqual([first?.text, first?.output], ["npx loom graph p.md", ["graph TD", "  s0"]]);
    assert.deepEqual([second?.text, second?.output], ["node bin/loom.js --version", ["loom 1.0.0"]]);
  });

  it("ignores other blocks, also a shell line inside a longer fence", () => {
    const page = "````markdown\n```sh\nnpm run nothing\n```\n````\n```yaml\nrun: npm test\n```\n";
    assert.deepEqual(texts(page), []);
  });

  it("counts inline spans that start with loom's entry points, not templates or other tools", () => {
    const page =
      "Run `npm start`, then `npx loom usage --repo o/r`; `npm run release -- <owner/name>` and " +
      "`npm run test:only -- …` are templates; `gh label create x` and `sqlite3 a.db` are not loom's; " +
      "`npm` alone is a word. ``.ci/run`` too.";
    assert.deepEqual(texts(page), ["npm start", "npx loom usage --repo o/r", ".ci/run"]);
  });

  it("does not read inline spans inside a fence", () => {
    assert.deepEqual(texts("```text\nsee `npm start`\n```\n"), []);
  });
});

describe("normalizeCommand", () => {
  it("keeps a # that is not a comment, drops one that is", () => {
    assert.equal(normalizeCommand("echo a#b   # note"), "echo a#b");
  });
});
