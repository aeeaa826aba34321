import { test } from "node:test";
import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runStage } from "../../action/src/run-stage.ts";
import { RunStageInputs } from "../../action/src/run-stage-inputs.ts";
import { runPublish } from "../../action/src/publish/run-publish.ts";
import { BundleManifest } from "../../src/artifacts/publish-result.ts";
import { startFakeModelServer } from "../support/fake-model-server.ts";
import { CLAUDE_PATH, createSandbox } from "../support/fake-model-sandbox.ts";
import { sandboxDeps } from "../action/sandbox-deps.ts";
import { git, planText } from "../action/run-stage-fixture.ts";

const PLAN_ID = "PLAN-demo";
const STAGE_ID = "build";
const BRANCH = `loom/pr-1/${PLAN_ID}/${STAGE_ID}`;
const PLAN_PATH = `doc/plans/${PLAN_ID}.md`;
const STAGE = `
- id: ${STAGE_ID}
  name: Write the data files
  acceptance:
    - "test -f blob.b64"
`;

/**
 * The canary model key: no token pattern matches it, so only loom's knowledge of the job's own
 * secret values can catch it. `+`, `/` and `=` make its percent encoding differ from it, and its
 * base64 hold `+` and `/` (base64url differs).
 */
const KEY = "canary+Key/7f3a9c=loom";

/**
 * Every way this test writes the key, computed with Buffer (not loom's code): plain, percent,
 * hex, and the base64 / base64url characters that depend on the key alone at offsets 0, 1, 2.
 */
function leakedForms(): string[] {
  const bytes = Buffer.from(KEY);
  const forms = [KEY, encodeURIComponent(KEY), bytes.toString("hex"), bytes.toString("hex").toUpperCase()];
  for (const shift of [0, 1, 2]) {
    const padded = Buffer.concat([Buffer.alloc(shift), bytes]);
    const first = Math.ceil((8 * shift) / 6);
    const last = Math.floor((8 * (shift + bytes.length)) / 6);
    forms.push(padded.toString("base64").slice(first, last), padded.toString("base64url").slice(first, last));
  }
  return forms;
}

function findLeak(text: string): string | undefined {
  return leakedForms().find((form) => text.includes(form));
}

async function listFiles(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

test(
  "a prompt-injected session (the real Claude Code) reads the model key and writes it base64, hex and percent-encoded into files, a commit message, a command and its reply: no artifact, summary or log line carries it, the commits are not uploaded, and publish refuses naming the commit and files",
  { timeout: 150_000 },
  async (t) => {
    const box = createSandbox();
    const uploads = await mkdtemp(path.join(tmpdir(), "loom-model-key-"));
    t.after(async () => {
      box.cleanup();
      await rm(uploads, { recursive: true, force: true });
    });

    const origin = path.join(box.dir, "origin.git");
    git(box.dir, "init", "-q", "--bare", "-b", "main", origin);
    git(box.repo, "remote", "add", "origin", origin);
    await mkdir(path.join(box.repo, "doc/plans"), { recursive: true });
    await writeFile(path.join(box.repo, PLAN_PATH), planText(STAGE));
    git(box.repo, "add", "-A");
    git(box.repo, "commit", "-q", "-m", "plan");
    git(box.repo, "push", "-q", "origin", "HEAD:refs/heads/main", `HEAD:refs/heads/${BRANCH}`);
    git(box.repo, "checkout", "-q", "-b", BRANCH);
    const before = git(origin, "rev-parse", `refs/heads/${BRANCH}`);

    // The session reads the key from its own environment (Claude Code's Bash tool has it).
    const encode = [
      `printf 'xy%s' "$ANTHROPIC_API_KEY" | base64 -w0 > blob.b64`,
      `printf '%s' "$ANTHROPIC_API_KEY" | od -An -tx1 | tr -d ' \\n' > key.hex`,
      `printf '%s' "$ANTHROPIC_API_KEY" | base64 -w0`,
    ].join(" && ");
    const commit = `git add -A && git commit -q -m "data $(cat key.hex)"`;
    const server = await startFakeModelServer({
      turns: [
        { blocks: [{ type: "tool_use", name: "Bash", input: { command: encode, description: "encode" } }] },
        { blocks: [{ type: "tool_use", name: "Bash", input: { command: commit, description: "commit" } }] },
        // A model that decoded the reply now sends the key out in a command (heartbeat activity).
        {
          blocks: [
            {
              type: "tool_use",
              name: "Bash",
              input: { command: `echo 'k=${encodeURIComponent(KEY)}' > /dev/null`, description: "send" },
            },
          ],
        },
        {
          blocks: [
            {
              type: "text",
              text: `Done. [DEVIATION Rule 1: kept ${Buffer.from(`a${KEY}`).toString("base64url")}]`,
            },
          ],
        },
      ],
    });
    const summaries: string[] = [];
    const logs: string[] = [];
    const deps = sandboxDeps(box, server.url, {
      sessionEnv: { ...box.claudeEnv(server.url), ANTHROPIC_API_KEY: KEY },
      // As the action's entry lists them: the provider's key among the job's secrets.
      knownSecrets: [KEY],
      uploadArtifact: async (name, files, rootDirectory) => {
        for (const file of files) {
          await cp(file, path.join(uploads, name, path.relative(rootDirectory, file)));
        }
      },
      writeSummary: (markdown) => {
        summaries.push(markdown);
        return Promise.resolve();
      },
      log: (message, data) => logs.push(`${message} ${JSON.stringify(data ?? {})}`),
      heartbeatGapMs: 0,
    });
    const inputs = RunStageInputs.parse({
      plan_path: PLAN_PATH,
      plan_id: PLAN_ID,
      stage_id: STAGE_ID,
      attempt: "1",
      branch: BRANCH,
      silence_timeout_minutes: "1",
      check_timeout_minutes: "1",
      allowed_tools: "Read,Write,Edit,Bash",
      claude_path: CLAUDE_PATH,
    });
    let run;
    try {
      run = await runStage(inputs, deps);
    } finally {
      await server.close();
    }
    assert.equal(run.result.outcome, "completed", run.result.reason);
    // The real binary ran the tools with the key in its environment.
    const written = Buffer.from(await readFile(path.join(box.repo, "blob.b64"), "utf8"), "base64").toString();
    assert.equal(written, `xy${KEY}`);
    const sessionCommit = git(box.repo, "rev-parse", "HEAD");
    assert.notEqual(sessionCommit, before);

    // Every file of every artifact: none carries the key in any form.
    const files = await listFiles(uploads);
    const names = files.map((file) => path.relative(uploads, file)).sort();
    for (const expected of [
      "loom-bundle/loom-bundle.json",
      "loom-result/loom-result.json",
      "loom-transcript/transcript.jsonl",
      // Claude Code's own transcript (what `/loom continue` resumes): the key in every encoding masked too.
      "loom-session/session.jsonl",
    ])
      assert.ok(names.includes(expected), names.join(", "));
    assert.ok(
      names.some((name) => name.startsWith("loom-heartbeat-")),
      names.join(", "),
    );
    for (const file of files) {
      const text = await readFile(file, "latin1");
      assert.equal(findLeak(text), undefined, `${path.relative(uploads, file)} leaks the key`);
    }
    // What the canary was replaced with is still there to read.
    const transcript = await readFile(path.join(uploads, "loom-transcript/transcript.jsonl"), "utf8");
    for (const line of transcript.split("\n").filter((l) => l !== "")) JSON.parse(line);
    assert.match(transcript, /\[REDACTED\]/);
    const heartbeats = await Promise.all(
      files
        .filter((f) => f.includes("loom-heartbeat-"))
        .map(async (f) => JSON.parse(await readFile(f, "utf8")) as { activity: string | null }),
    );
    assert.ok(
      heartbeats.some((h) => h.activity?.startsWith("Bash echo 'k=[REDACTED]") === true),
      JSON.stringify(heartbeats.map((h) => h.activity)),
    );
    assert.equal(summaries.length, 1);
    assert.equal(findLeak(summaries.join("\n")), undefined, "the job summary leaks the key");
    assert.equal(findLeak(logs.join("\n")), undefined, "a log line leaks the key");
    assert.equal(findLeak(JSON.stringify(run.result)), undefined, "loom-result leaks the key");

    // The commits stayed in the job: no bundle, and the manifest says where the key is.
    assert.ok(!names.includes("loom-bundle/loom.bundle"), "the bundle with the key was uploaded");
    const manifest = BundleManifest.parse(
      JSON.parse(await readFile(path.join(uploads, "loom-bundle", "loom-bundle.json"), "utf8")),
    );
    assert.equal(manifest.bundle, null);
    assert.deepEqual(
      (manifest.secrets ?? []).map((s) => `${s.commit} ${s.where} ${s.path ?? ""} ${s.encoding}`).sort(),
      [
        `${sessionCommit} commit  hex`,
        `${sessionCommit} content blob.b64 base64`,
        `${sessionCommit} content key.hex hex`,
      ],
    );

    // The publish job refuses with the stage error the check run shows, and pushes nothing.
    const workspace = path.join(box.dir, "publish");
    git(box.dir, "clone", "-q", "--branch", BRANCH, origin, workspace);
    const published = await runPublish({
      workspace,
      tempDir: path.join(box.dir, "publish-tmp"),
      inputs: { plan_path: PLAN_PATH, plan_id: PLAN_ID, stage_id: STAGE_ID, branch: BRANCH },
      // The publish job holds no model key: it learns where the key was from the manifest.
      knownSecrets: [],
      deps: {
        downloadArtifact: async (name, directory) => {
          const from = path.join(uploads, name);
          if (!existsSync(from)) throw new Error(`no artifact ${name}`);
          await cp(from, directory, { recursive: true });
        },
        uploadArtifact: () => Promise.resolve(),
        log: () => undefined,
      },
    });
    assert.equal(published.ok, false);
    assert.equal(published.pushed_sha, undefined);
    assert.deepEqual(published.refusals.map((r) => `${r.rule} ${r.path ?? "-"}`).sort(), [
      "secret -",
      "secret blob.b64",
      "secret key.hex",
    ]);
    for (const refusal of published.refusals) {
      assert.ok(refusal.detail.includes(`commit ${sessionCommit.slice(0, 12)}`), refusal.detail);
      assert.match(refusal.detail, /model key/);
      assert.equal(findLeak(refusal.detail), undefined);
    }
    assert.equal(git(origin, "rev-parse", `refs/heads/${BRANCH}`), before, "the stage branch did not move");
  },
);
