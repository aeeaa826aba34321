import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { describe, it } from "node:test";
import { START_FLAGS } from "../support/start-flags.ts";
import { readDockerfile } from "./read-dockerfile.ts";

const ROOT = path.resolve(import.meta.dirname, "../..");
const { instructions, comments } = readDockerfile(path.join(ROOT, "Dockerfile"));
const finalStage = Math.max(...instructions.map((i) => i.stage));
const final = instructions.filter((i) => i.stage === finalStage);

/** Sources of `COPY` lines that copy from the build context (not `--from` another stage). */
function contextCopies(): string[] {
  return instructions
    .filter((i) => i.keyword === "COPY" && !i.args.includes("--from="))
    .flatMap((i) =>
      i.args
        .split(/\s+/)
        .filter((a) => !a.startsWith("--"))
        .slice(0, -1),
    );
}

/** Every file `entry` imports, transitively, through relative imports; and the packages it names. */
function reachableFrom(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(
      /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g,
    )) {
      const specifier = match[1] ?? match[2]!;
      if (/^import\s+type\b|^export\s+type\b/.test(match[0].trim())) continue;
      if (specifier.startsWith(".")) queue.push(path.resolve(path.dirname(file), specifier));
      else if (!specifier.startsWith("node:") && !builtinModules.includes(specifier))
        packages.add(
          specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!,
        );
    }
  }
  return { files, packages };
}

describe("the Dockerfile", () => {
  it("builds on a Node.js 24 slim image pinned to an exact release, and says the release pins the digest", () => {
    const bases = instructions.filter((i) => i.keyword === "FROM").map((i) => i.args.split(/\s+/)[0]!);
    assert.ok(bases.length > 0);
    for (const base of bases)
      assert.match(base, /^node:24\.\d+\.\d+-[a-z]+-slim(@sha256:[0-9a-f]{64})?$/, base);
    assert.ok(comments.some((c) => /digest/.test(c) && /release/.test(c)));
  });

  it("takes its base image from the build argument NODE_IMAGE, and says how to pin it by digest", () => {
    const raw = readFileSync(path.join(ROOT, "Dockerfile"), "utf8").split("\n");
    const arg = raw.findIndex((line) => /^ARG NODE_IMAGE=node:24\.\d+\.\d+-[a-z]+-slim\b/.test(line));
    const froms = raw.flatMap((line, index) => (line.startsWith("FROM ") ? [index] : []));
    assert.ok(arg >= 0 && froms.length > 0 && arg < froms[0]!, "ARG NODE_IMAGE comes before the first FROM");
    for (const index of froms) assert.match(raw[index]!, /^FROM \$\{NODE_IMAGE\}( AS \w+)?$/);
    assert.ok(
      comments.some((c) => /docker build --build-arg NODE_IMAGE=node:24\.\S+@sha256:<digest>/.test(c)),
      "an example with a digest",
    );
  });

  it("puts the loom command on PATH, linked to the copied bin/loom.js", () => {
    const links = final.filter((i) => i.keyword === "RUN" && /\bln -s\b/.test(i.args));
    assert.deepEqual(
      links.map((i) => i.args),
      ["ln -s /app/bin/loom.js /usr/local/bin/loom"],
    );
    assert.ok(contextCopies().includes("bin"));
    assert.ok(statSync(path.join(ROOT, "bin/loom.js")).mode & 0o111, "bin/loom.js is executable");
    assert.match(readFileSync(path.join(ROOT, "bin/loom.js"), "utf8"), /^#!\/usr\/bin\/env node\n/);
  });

  it("installs the runtime dependencies only, with npm ci", () => {
    const installs = instructions.filter((i) => i.keyword === "RUN" && i.args.includes("npm ci"));
    assert.equal(installs.length, 1);
    assert.match(installs[0]!.args, /npm ci --omit=dev/);
  });

  it("runs node app/main.ts with npm start's Node flags in production as the non-root node user", () => {
    const env = final
      .filter((i) => i.keyword === "ENV")
      .map((i) => i.args)
      .join(" ");
    assert.match(env, /\bNODE_ENV=production\b/);
    assert.match(env, /\bHOST=0\.0\.0\.0\b/, "listens beyond the container's loopback");
    const users = final.filter((i) => i.keyword === "USER");
    assert.deepEqual(
      users.map((u) => u.args),
      ["node"],
    );
    const cmd = final.filter((i) => i.keyword === "CMD");
    // The same V8 flags as `npm start`: the memory the benchmarks measure is the image's too.
    assert.deepEqual(
      cmd.map((c) => JSON.parse(c.args) as unknown),
      [["node", ...START_FLAGS, "app/main.ts"]],
    );
    assert.ok(START_FLAGS.includes("--max-semi-space-size=4"), START_FLAGS.join(" "));
    assert.ok(final.indexOf(users[0]!) < final.indexOf(cmd[0]!));
  });

  it("checks its health on /healthz with Node's fetch, not curl", () => {
    const checks = final.filter((i) => i.keyword === "HEALTHCHECK");
    assert.equal(checks.length, 1);
    const check = checks[0]!.args;
    assert.match(check, /CMD \["node", "-e", ".*fetch\(.*\/healthz.*"\]/);
    assert.doesNotMatch(check, /curl|wget/);
    const port = /process\.env\.PORT \|\| (\d+)/.exec(check)?.[1];
    assert.equal(port, "3000");
  });

  /** The image's entries: the App (its CMD) and the `loom` CLI (`docker run … node bin/loom.js usage`). */
  const ENTRIES = ["app/main.ts", "bin/loom.js"];

  for (const entry of ENTRIES)
    it(`copies files that exist, and everything node ${entry} imports`, () => {
      const sources = contextCopies();
      for (const source of sources) assert.ok(existsSync(path.join(ROOT, source)), `COPY ${source}: missing`);
      const copied = sources.map((s) => path.join(ROOT, s));
      const { files } = reachableFrom(path.join(ROOT, entry));
      assert.ok(files.size > 1, `${entry} imports something`);
      for (const file of files) {
        const inside = copied.some(
          (c) => file === c || (statSync(c).isDirectory() && file.startsWith(c + path.sep)),
        );
        assert.ok(
          inside,
          `${path.relative(ROOT, file)} is imported by ${entry} but not copied into the image`,
        );
      }
      assert.ok(sources.includes("app.yml"), "the manifest the setup flow reads");
    });

  it("needs no devDependency at run time (npm ci --omit=dev leaves them out)", () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const packages = new Set(ENTRIES.flatMap((entry) => [...reachableFrom(path.join(ROOT, entry)).packages]));
    assert.ok(packages.has("probot"));
    for (const name of packages)
      assert.ok(name in manifest.dependencies, `${name} is imported but not a dependency`);
  });
});

describe(".dockerignore", () => {
  const patterns = readFileSync(path.join(ROOT, ".dockerignore"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));

  it("keeps secrets, local state and installs out of the build context", () => {
    for (const needed of [".env", "node_modules", "*.sqlite", "*.sqlite-*", "*.pem", ".git"])
      assert.ok(patterns.includes(needed), `${needed} is not ignored`);
  });

  it("ignores nothing the Dockerfile copies", () => {
    for (const source of contextCopies())
      assert.ok(!patterns.includes(source), `${source} is copied but ignored`);
  });
});
