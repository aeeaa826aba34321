export type CompiledPattern = { ok: true; regex: RegExp } | { ok: false; message: string };

/** The reference CLI refuses longer wiring patterns (they cost time on every check). */
export const MAX_WIRING_PATTERN_LENGTH = 500;

const JS_FLAGS: Readonly<Record<string, string>> = { i: "i", m: "m", s: "s" };

/**
 * Compiles a wiring `pattern` (written for Rust's `regex` crate) as a JavaScript RegExp: a
 * leading inline flag group such as `(?i)` becomes RegExp flags and `(?P<name>` becomes
 * `(?<name>`. With `literal` (the wiring check's `literal: true`) the pattern is matched as plain
 * text. Patterns that JavaScript cannot compile come back as a message, never a throw.
 */
export function compileWiringPattern(pattern: string, options: { literal?: boolean } = {}): CompiledPattern {
  if (pattern.length > MAX_WIRING_PATTERN_LENGTH) {
    return {
      ok: false,
      message: `pattern is ${pattern.length} characters; the limit is ${MAX_WIRING_PATTERN_LENGTH}`,
    };
  }
  if (options.literal === true) return { ok: true, regex: new RegExp(escapeRegExp(pattern)) };
  let body = pattern.replaceAll("(?P<", "(?<");
  let flags = "";
  const inline = /^\(\?([a-zA-Z]+)\)/.exec(body);
  if (inline) {
    for (const flag of inline[1] ?? "") {
      const mapped = JS_FLAGS[flag];
      if (!mapped) return { ok: false, message: `inline flag "${flag}" is not supported (use i, m or s)` };
      if (!flags.includes(mapped)) flags += mapped;
    }
    body = body.slice(inline[0].length);
  }
  try {
    // Unicode classes (`\p{L}`) only work in unicode mode; elsewhere keep the lenient mode.
    return { ok: true, regex: new RegExp(body, /\\[pP]\{/.test(body) ? `${flags}u` : flags) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
