import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createsBranchFirst, findCallerBlocker } from "../../src/caller/caller-verdict.ts";
import type { CallerVerdict } from "../../src/caller/caller-verdict.ts";
import { judgeCaller } from "../../src/caller/judge-caller.ts";
import { LOOM_RELEASES } from "../../src/release/loom-releases.ts";
import type { LoomRelease } from "../../src/release/loom-releases.ts";
import { MAIN_CONTRACT } from "../../src/release/stage-contract.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const PATH = ".github/workflows/loom.yml";
const EXAMPLE = readFileSync(join(ROOT, "examples/loom.yml"), "utf8");
const OIDC_EXAMPLE = readFileSync(join(ROOT, "examples/loom-bedrock.yml"), "utf8");

/** loom's releases before this App's contract (the table as it was before a release of it was cut). */
const OLDER = LOOM_RELEASES.filter((release) => release.contract !== MAIN_CONTRACT);
/** A release of this App's contract, newer than every real one. */
const NEXT: LoomRelease = {
  version: "0.4.0",
  repository: "loom-dev/loom",
  sha: "d".repeat(40),
  contract: MAIN_CONTRACT,
};
const RELEASES = [...OLDER, NEXT];
const V02 = LOOM_RELEASES.find((release) => release.version === "0.2.0")?.sha ?? "";
const V03 = LOOM_RELEASES.find((release) => release.version === "0.3.0")?.sha ?? "";

/** examples/loom.yml (or `base`) with its pin replaced by `ref` of `repository`. */
function pinning(ref: string, { base = EXAMPLE, repository = "loom-dev/loom" } = {}): string {
  return base.replace(
    /uses: \S+\/\.github\/workflows\/(loom-stage(?:-oidc)?\.yml)@\S+/,
    `uses: ${repository}/.github/workflows/$1@${ref}`,
  );
}

function judge(text: string | null, releases: readonly LoomRelease[] = RELEASES): CallerVerdict {
  return judgeCaller({ path: PATH, branch: "main", found: true, text }, releases);
}

function noteOf(verdict: CallerVerdict): string {
  assert.notEqual(verdict.kind, "current");
  return verdict.kind === "current" ? "" : verdict.note;
}

const PASTE_NEXT = [
  "    permissions: { contents: write, actions: read, checks: write }",
  `    uses: loom-dev/loom/.github/workflows/loom-stage.yml@${NEXT.sha}`,
].join("\n");

describe("judgeCaller: how loom serves the caller's pin", () => {
  it("a release of this App's contract, by commit or by tag, is served as it is: no branch first, nothing on the check run", () => {
    for (const ref of [NEXT.sha, "v0.4.0"]) {
      const verdict = judge(pinning(ref));
      assert.deepEqual(verdict, { kind: "current", release: "0.4.0" });
      assert.equal(createsBranchFirst(verdict), false);
      assert.equal(findCallerBlocker(verdict), null);
    }
  });

  it("0.3.0 is served with the stage branch created before attempt 1, and the note names the line read, the cost and the pin to move to", () => {
    const verdict = judge(pinning(V03));
    assert.equal(verdict.kind, "older");
    assert.equal(createsBranchFirst(verdict), true);
    assert.equal(findCallerBlocker(verdict), null);
    const note = noteOf(verdict);
    assert.ok(
      note.includes(`\`${PATH}\` line 18: \`uses: loom-dev/loom/.github/workflows/loom-stage.yml@${V03}\``),
      note,
    );
    assert.match(note, /pins loom 0\.3\.0 \(contract 0\.3\)/);
    assert.match(note, /creates each stage branch before the first run.*a read and a write more per stage/);
    assert.match(note, /Pin loom 0\.4\.0/);
    assert.ok(note.includes(PASTE_NEXT), note);
  });

  it("0.3.0 while no release speaks this App's contract: served, and the note says no newer pin exists yet", () => {
    const note = noteOf(judge(pinning(V03), OLDER));
    assert.match(note, /No release of loom speaks this App's contract \(0\.4\) yet/);
    assert.ok(!note.includes("```yaml"), "nothing to paste: 0.3.0 is the newest it serves");
  });

  it("0.2.0 is refused: nothing is dispatched, and the check run gets the line read and the `uses:` line to paste", () => {
    const verdict = judge(pinning(V02));
    assert.equal(verdict.kind, "refused");
    assert.equal(createsBranchFirst(verdict), false);
    const reason = findCallerBlocker(verdict) ?? "";
    assert.match(
      reason,
      /pins loom 0\.2\.0, which this App cannot serve: its action refuses every stage branch this App names/,
    );
    const note = noteOf(verdict);
    assert.ok(note.includes(`line 18: \`uses: loom-dev/loom/.github/workflows/loom-stage.yml@${V02}\``));
    assert.ok(note.includes(PASTE_NEXT), note);
    assert.match(note, /Nothing was dispatched/);
  });

  it("an unknown ref (a branch, a fork's own commit, the repository's own copy) is served the safe way, saying loom could not tell", () => {
    const cases: [string, RegExp][] = [
      [pinning("main"), /pins `main`, which is no release commit loom knows/],
      [pinning("e".repeat(40), { repository: "acme/loom-fork" }), /pins `e{40}`, which is no release commit/],
      [
        EXAMPLE.replace(/uses: \S+/, "uses: ./.github/workflows/loom-stage.yml"),
        /calls this repository's own copy of the stage workflow/,
      ],
    ];
    for (const [text, what] of cases) {
      const verdict = judge(text);
      assert.equal(verdict.kind, "unknown");
      assert.equal(createsBranchFirst(verdict), true);
      const note = noteOf(verdict);
      assert.match(note, what);
      assert.match(
        note,
        /cannot tell which contract it speaks.*creating each stage branch before its first run \(a read and a write more per stage\)/,
      );
      assert.ok(note.includes(PASTE_NEXT), note);
    }
  });

  it("a caller line too long for the check run, or with backticks, is quoted cut and plain", () => {
    const note = noteOf(judge(pinning(`feature/${"x".repeat(300)}`)));
    assert.ok(note.includes(`pins \`feature/${"x".repeat(91)}…\``), note);
    assert.ok(note.length < 1500, `the note stays short: ${note.length}`);
    assert.ok(
      noteOf(judge(pinning("a`b"))).includes("pins `a'b`"),
      "the caller's backtick cannot end the quote",
    );
  });

  it("a missing, oversized or unusable caller is refused with what to add", () => {
    const missing = judgeCaller({ path: PATH, branch: "trunk", found: false }, RELEASES);
    assert.equal(
      findCallerBlocker(missing),
      "the caller workflow `.github/workflows/loom.yml` is not on the default branch `trunk`",
    );
    assert.ok(noteOf(missing).includes(PASTE_NEXT));
    assert.match(findCallerBlocker(judge(null)) ?? "", /is larger than 1 MiB/);
    const broken = judge("on: workflow_dispatch\njobs: {}\njobs: {}\n");
    assert.match(
      findCallerBlocker(broken) ?? "",
      /cannot be used: it is not valid YAML: Map keys must be unique.* \(line 3\)$/,
    );
    const noJob = judge("on: workflow_dispatch\njobs:\n  stage:\n    runs-on: ubuntu-latest\n");
    assert.match(findCallerBlocker(noJob) ?? "", /no job calls loom's stage workflow/);
  });

  it("a caller missing an input loom sends, or requiring one it never sends, is refused (GitHub would refuse every dispatch)", () => {
    const missing = judge(pinning(NEXT.sha).replace("      base: { required: true }\n", ""));
    assert.match(
      findCallerBlocker(missing) ?? "",
      /declares no `workflow_dispatch` input base \(loom sends key, plan_path, plan_id, stage_id, attempt, kind, branch, base, previous_run_id\)/,
    );
    assert.ok(
      noteOf(missing).includes(
        `line 17: \`uses: loom-dev/loom/.github/workflows/loom-stage.yml@${NEXT.sha}\``,
      ),
    );
    const extra = judge(
      pinning(NEXT.sha).replace(
        "      base: { required: true }\n",
        "      base: { required: true }\n      ticket: { required: true }\n",
      ),
    );
    assert.match(findCallerBlocker(extra) ?? "", /requires the input ticket, which loom never sends/);
    const optional = judge(
      pinning(NEXT.sha).replace(
        "      base: { required: true }\n",
        "      base: { required: true }\n      ticket: { required: false }\n",
      ),
    );
    assert.equal(optional.kind, "current", "an optional input of its own is fine");
  });

  it("a job that grants less than the pinned release's jobs ask for is refused with the permissions line to paste", () => {
    const noChecks = judge(pinning(NEXT.sha).replace(", checks: write }", " }"));
    assert.match(
      findCallerBlocker(noChecks) ?? "",
      /does not grant checks: write, which its jobs ask for \(GitHub fails such a run at startup\)/,
    );
    assert.ok(noteOf(noChecks).includes(PASTE_NEXT));
    const readAll = judge(pinning(NEXT.sha).replace(/permissions: \{[^}]*\}/, "permissions: read-all"));
    assert.match(findCallerBlocker(readAll) ?? "", /does not grant contents: write, checks: write/);
    assert.equal(
      judge(pinning(NEXT.sha).replace(/permissions: \{[^}]*\}/, "permissions: write-all")).kind,
      "current",
    );
    assert.equal(
      judge(pinning(NEXT.sha).replace(/ {4}permissions: \{[^}]*\}\n/, "")).kind,
      "current",
      "none set: the repository's default, unknown here",
    );
    // 0.3's jobs never asked for checks: its callers granted contents and actions.
    assert.equal(judge(pinning(V03).replace(", checks: write }", " }")).kind, "older");
    const oidc = judge(pinning(NEXT.sha, { base: OIDC_EXAMPLE }).replace(", id-token: write }", " }"));
    assert.match(findCallerBlocker(oidc) ?? "", /does not grant id-token: write/);
    assert.ok(
      noteOf(oidc).includes(
        "permissions: { contents: write, actions: read, checks: write, id-token: write }",
      ),
    );
    assert.ok(
      noteOf(oidc).includes(`loom-stage-oidc.yml@${NEXT.sha}`),
      "the OIDC workflow stays the OIDC workflow",
    );
  });
});
