import { glob, readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { CheckResult } from "../../../src/artifacts/stage-result.ts";
import { compileWiringPattern } from "../../../src/plan/compile-wiring-pattern.ts";
import type { RegressionTest, WiringCheck } from "../../../src/plan/plan.ts";
import { resolveInside, type CheckContext } from "./check-context.ts";
import { findStub } from "./find-stub.ts";
import { tailOutput } from "./tail-output.ts";

const GLOB_CHARS = /[*?[\]{}]/;
/** Bytes of a file read for stub and wiring checks. */
const MAX_READ = 2 * 1024 * 1024;

/** Files matching a stage-relative path or glob, inside `dir`; null when the pattern escapes the checkout. */
async function matchFiles(ctx: CheckContext, dir: string, pattern: string): Promise<string[] | null> {
  if (resolveInside(ctx.workspace, dir, pattern.replace(/[*?[\]{}].*$/, "")) === null) return null;
  if (!GLOB_CHARS.test(pattern)) {
    const full = resolveInside(ctx.workspace, dir, pattern);
    return full === null ? null : [full];
  }
  const found: string[] = [];
  for await (const entry of glob(pattern, { cwd: dir })) {
    const full = resolveInside(ctx.workspace, dir, entry);
    if (full !== null) found.push(full);
  }
  return found.sort();
}

async function readText(file: string): Promise<{ ok: true; text: string } | { ok: false; why: string }> {
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => error);
  if (info instanceof Error)
    return { ok: false, why: info.code === "ENOENT" ? "does not exist" : info.message };
  if (info.isDirectory()) return { ok: false, why: "is a directory" };
  const buffer = await readFile(file);
  return { ok: true, text: buffer.subarray(0, MAX_READ).toString("utf8") };
}

function result(
  kind: CheckResult["kind"],
  name: string,
  passed: boolean,
  detail: string,
  ctx: CheckContext,
  started: number,
): CheckResult {
  return {
    kind,
    name: name.slice(0, 1024),
    passed,
    duration_ms: Math.max(0, Math.round(ctx.now() - started)),
    output_tail: tailOutput({ failures: [detail] }, ctx.knownSecrets),
  };
}

/** An artifact passes when every file it names exists and none looks like a stub. */
export async function checkArtifact(pattern: string, dir: string, ctx: CheckContext): Promise<CheckResult> {
  const started = ctx.now();
  const files = await matchFiles(ctx, dir, pattern);
  if (files === null) return result("artifact", pattern, false, "the path leaves the checkout", ctx, started);
  if (files.length === 0) return result("artifact", pattern, false, "no file matches", ctx, started);
  const problems: string[] = [];
  for (const file of files) {
    const rel = path.relative(dir, file);
    const read = await readText(file);
    if (!read.ok) {
      const isDir = read.why === "is a directory";
      if (!isDir) problems.push(`${rel} ${read.why}`);
      continue;
    }
    const stub = findStub(read.text);
    if (stub !== null) problems.push(`${rel}: ${stub}`);
  }
  const passed = problems.length === 0;
  const detail = passed ? `${files.length} file(s) exist with content` : problems.join("\n");
  return result("artifact", pattern, passed, detail, ctx, started);
}

/** A wiring check passes when its pattern matches in (one of) its source file(s). */
export async function checkWiring(wiring: WiringCheck, dir: string, ctx: CheckContext): Promise<CheckResult> {
  const started = ctx.now();
  const name = wiring.description ?? `${wiring.pattern} in ${wiring.source}`;
  const compiled = compileWiringPattern(wiring.pattern, { literal: wiring.literal === true });
  if (!compiled.ok)
    return result("wiring", name, false, `invalid pattern: ${compiled.message}`, ctx, started);
  const regex = new RegExp(
    compiled.regex.source,
    compiled.regex.flags.includes("m") ? compiled.regex.flags : `${compiled.regex.flags}m`,
  );
  const files = await matchFiles(ctx, dir, wiring.source);
  if (files === null)
    return result("wiring", name, false, "the source path leaves the checkout", ctx, started);
  let readable = 0;
  for (const file of files) {
    const read = await readText(file);
    if (!read.ok) continue;
    readable += 1;
    const match = regex.exec(read.text);
    if (match !== null) {
      const line = read.text.slice(0, match.index).split("\n").length;
      return result(
        "wiring",
        name,
        true,
        `matched in ${path.relative(dir, file)} at line ${line}`,
        ctx,
        started,
      );
    }
  }
  const where = readable === 0 ? `${wiring.source} does not exist` : `no match in ${wiring.source}`;
  return result("wiring", name, false, `pattern /${wiring.pattern}/: ${where}`, ctx, started);
}

/**
 * A bug-fix stage's regression test, as the reference verifies it: the file (relative to
 * `working_dir`) exists, is not empty, and contains each `must_contain` string as written.
 */
export async function checkRegressionTest(
  test: RegressionTest,
  dir: string,
  ctx: CheckContext,
): Promise<CheckResult> {
  const started = ctx.now();
  const done = (passed: boolean, detail: string): CheckResult =>
    result("regression_test", test.file, passed, detail, ctx, started);
  const file = resolveInside(ctx.workspace, dir, test.file);
  if (file === null) return done(false, `regression test file ${test.file} leaves the checkout`);
  const read = await readText(file);
  if (!read.ok) return done(false, `regression test file missing: ${test.file} ${read.why}`);
  if (read.text.trim() === "") return done(false, `regression test file is empty: ${test.file}`);
  const missing = (test.must_contain ?? []).filter((pattern) => !read.text.includes(pattern));
  if (missing.length > 0)
    return done(
      false,
      `regression test file ${test.file} is missing ${missing.length} required pattern(s): ${missing.map((p) => JSON.stringify(p)).join(", ")}`,
    );
  const count = test.must_contain?.length ?? 0;
  return done(
    true,
    `${test.file} exists and contains ${count === 1 ? "its required pattern" : `all ${count} required patterns`}`,
  );
}
