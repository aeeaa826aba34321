import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { z } from "zod";
import { readHookEnv, type HookEnv } from "./hook-env.ts";

/** What a hook answers: exit 0 lets Claude Code go on; exit 2 blocks and shows `stderr` to the model. */
export type HookReply = { exitCode: 0 | 2; stdout?: string; stderr?: string };

export type HookInputResult<T> = { ok: true; input: T } | { ok: false; reason: string };

/** Largest stdin a hook reads (a tool response can be big; the rest is ignored). */
const MAX_STDIN_BYTES = 8 * 1024 * 1024;

export async function readStdin(stream: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    if (size < MAX_STDIN_BYTES) chunks.push(buffer);
    size += buffer.length;
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function parseHookInput<T>(schema: z.ZodType<T>, raw: string): HookInputResult<T> {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    return { ok: false, reason: `hook input is not JSON: ${String(error)}` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    return { ok: false, reason: `hook input is not what loom expects: ${parsed.error.message}` };
  return { ok: true, input: parsed.data };
}

/** Replaces a file in one step (write a sibling, rename), so readers never see half a file. */
export function writeFileAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

export type HookHandler<T> = (input: T, env: HookEnv, now: Date) => HookReply;

/**
 * The whole life of a hook process: read stdin, check it, run the handler, answer. Fails open: bad
 * input or any error → exit 0 with a note on stderr, so a broken hook never stops a session.
 */
export async function runHook<T>(name: string, schema: z.ZodType<T>, handler: HookHandler<T>): Promise<void> {
  try {
    const parsed = parseHookInput(schema, await readStdin(process.stdin));
    if (!parsed.ok) {
      process.stderr.write(`loom ${name} hook: ${parsed.reason} (ignored)\n`);
      process.exitCode = 0;
      return;
    }
    const reply = handler(parsed.input, readHookEnv(process.env), new Date());
    if (reply.stdout !== undefined) process.stdout.write(reply.stdout);
    if (reply.stderr !== undefined) process.stderr.write(reply.stderr);
    process.exitCode = reply.exitCode;
  } catch (error) {
    process.stderr.write(
      `loom ${name} hook failed, continuing: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exitCode = 0;
  }
}
