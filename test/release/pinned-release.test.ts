import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { LOOM_RELEASES } from "../../src/release/loom-releases.ts";
import type { LoomRelease } from "../../src/release/loom-releases.ts";
import { MAIN_CONTRACT, OIDC_GRANTS, STAGE_CONTRACTS } from "../../src/release/stage-contract.ts";
import { EXAMPLES } from "../workflows/workflow-yaml.ts";

/*
 * The pin cannot drift: README's caller (and every example caller) pins the newest release in the
 * App's table, that release speaks this App's contract, and the stage workflows and the action's
 * inputs and outputs are what that release shipped. A change to them after the release fails here
 * until a release is cut (`npm run release`), which pins it.
 */

const ROOT = join(import.meta.dirname, "..", "..");
const STAGE_WORKFLOWS = [".github/workflows/loom-stage.yml", ".github/workflows/loom-stage-oidc.yml"];

const git = (...args: string[]): string => execFileSync("git", ["-C", ROOT, ...args], { encoding: "utf8" });

/** The stage workflow commit README's caller block pins. */
function readReadmePin(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const block = /<!-- caller:start -->([\s\S]*?)<!-- caller:end -->/.exec(readme)?.[1] ?? "";
  const pin = /uses: \S+\/\.github\/workflows\/loom-stage(?:-oidc)?\.yml@([0-9a-f]{40})/.exec(block)?.[1];
  assert.ok(
    pin,
    "README.md's caller block (between the caller markers) pins loom's stage workflow by commit",
  );
  return pin;
}

/** `path` at `sha`, from this clone's history; fails saying so when the commit is not here. */
function showAt(sha: string, path: string): string {
  try {
    git("cat-file", "-e", `${sha}^{commit}`);
  } catch (error) {
    assert.fail(
      `release commit ${sha} is not in this clone (a shallow checkout? fetch its history): ${String(error)}`,
    );
  }
  return git("show", `${sha}:${path}`);
}

/** Workflow text with loom's own action stamps (`<owner>/<repo>/action@<sha>`) made alike. */
function unstamp(text: string): string {
  return text.replace(/[A-Za-z0-9-]+\/[A-Za-z0-9._-]+\/action@[0-9a-f]{40}/g, "<loom action>");
}

/** The first line where `now` differs from `then`, for the message. */
function firstDifference(then: string, now: string): string {
  const [a, b] = [then.split("\n"), now.split("\n")];
  const line = a.findIndex((text, index) => text !== b[index]);
  const at = line === -1 ? a.length : line;
  return `line ${at + 1}: ${JSON.stringify(a[at] ?? "")} then, ${JSON.stringify(b[at] ?? "")} now`;
}

function describeRelease(release: LoomRelease): string {
  return `release v${release.version} (${release.sha.slice(0, 12)})`;
}

/** The action's interface: its inputs and outputs as action.yml declares them. */
function readActionInterface(text: string): unknown {
  const action = parse(text) as { inputs?: unknown; outputs?: unknown };
  return { inputs: action.inputs ?? {}, outputs: action.outputs ?? {} };
}

/** The union of what a workflow's jobs ask for (`permissions:` of each job, strongest level kept). */
function readJobGrants(text: string): Record<string, string> {
  const jobs =
    (parse(text) as { jobs?: Record<string, { permissions?: Record<string, string> }> }).jobs ?? {};
  const grants: Record<string, string> = {};
  for (const job of Object.values(jobs))
    for (const [scope, level] of Object.entries(job.permissions ?? {}))
      if (grants[scope] !== "write") grants[scope] = level;
  return grants;
}

describe("the release README pins", () => {
  it("is the newest release in the App's table, every example caller pins it too, and it speaks this App's contract", () => {
    const pin = readReadmePin();
    const newest = LOOM_RELEASES.at(-1);
    assert.ok(newest);
    assert.equal(pin, newest.sha, `README pins ${pin}, the newest release is ${describeRelease(newest)}`);
    for (const file of EXAMPLES) {
      const pins = [...readFileSync(file, "utf8").matchAll(/loom-stage(?:-oidc)?\.yml@(\S+)/g)].map(
        (m) => m[1],
      );
      assert.deepEqual(pins, [newest.sha], `${file} pins ${describeRelease(newest)}`);
    }
    assert.equal(
      newest.contract,
      MAIN_CONTRACT,
      `${describeRelease(newest)} speaks contract ${newest.contract}`,
    );
  });

  it("shipped the stage workflows and the action's inputs and outputs this tree has (only loom's action stamps differ)", () => {
    const pin = readReadmePin();
    const release = LOOM_RELEASES.find((candidate) => candidate.sha === pin);
    assert.ok(release, `README pins ${pin}, which is no release in src/release/loom-releases.ts`);
    const cut = `the workflows changed since ${describeRelease(release)}: cut a release with npm run release`;
    for (const file of STAGE_WORKFLOWS) {
      const [then, now] = [
        unstamp(showAt(release.sha, file)),
        unstamp(readFileSync(join(ROOT, file), "utf8")),
      ];
      assert.ok(then === now, `${cut} (${file}, ${firstDifference(then, now)})`);
    }
    const then = readActionInterface(showAt(release.sha, "action/action.yml"));
    const now = readActionInterface(readFileSync(join(ROOT, "action/action.yml"), "utf8"));
    assert.deepEqual(now, then, `${cut} (action/action.yml's inputs or outputs)`);
  });
});

describe("the contract table", () => {
  it("asks callers for what each release's stage workflows ask for (this tree's for this App's contract)", () => {
    const trees: [string, (path: string) => string][] = [
      [MAIN_CONTRACT, (path) => readFileSync(join(ROOT, path), "utf8")],
      ...LOOM_RELEASES.map((release): [string, (path: string) => string] => [
        release.contract,
        (path) => showAt(release.sha, path),
      ]),
    ];
    for (const [version, read] of trees) {
      const contract = STAGE_CONTRACTS[version as typeof MAIN_CONTRACT];
      assert.deepEqual(
        readJobGrants(read(STAGE_WORKFLOWS[0] ?? "")),
        contract.grants,
        `${version}: loom-stage.yml`,
      );
      assert.deepEqual(
        readJobGrants(read(STAGE_WORKFLOWS[1] ?? "")),
        { ...contract.grants, ...OIDC_GRANTS },
        `${version}: loom-stage-oidc.yml`,
      );
    }
  });
});
