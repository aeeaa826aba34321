import { redactSecrets } from "./redact-secrets.ts";

/** A JSON value with every string (keys too) redacted; the same object when nothing changed. */
export function redactJsonValue(value: unknown, knownSecrets: readonly string[]): unknown {
  if (typeof value === "string") return redactSecrets(value, knownSecrets);
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => redactJsonValue(item, knownSecrets));
    return items.every((item, i) => item === value[i]) ? value : items;
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).map(([key, item]): [string, unknown] => [
      redactSecrets(key, knownSecrets),
      redactJsonValue(item, knownSecrets),
    ]);
    const same = entries.every(
      ([key, item]) => key in value && item === (value as Record<string, unknown>)[key],
    );
    return same ? value : Object.fromEntries(entries);
  }
  return value;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    // Not JSON: the caller redacts it as plain text.
    return { ok: false };
  }
}

/**
 * The text of an artifact with token-shaped secrets and the job's own secret values (plain or
 * encoded) replaced by `[REDACTED]`. A JSON document or JSON Lines stay valid: their string values
 * are redacted one by one (a replacement never cuts an escape sequence, a private key without its
 * END line is cut to the end of its string, not of the file) and only changed lines are rewritten.
 * Anything else is redacted as plain text.
 */
export function redactArtifactText(text: string, knownSecrets: readonly string[]): string {
  const whole = text.trim() === "" ? { ok: false as const } : parseJson(text);
  if (whole.ok) {
    const redacted = redactJsonValue(whole.value, knownSecrets);
    if (redacted === whole.value) return text;
    const indent = /^[{[]\r?\n([ \t]+)/.exec(text)?.[1] ?? "";
    return `${JSON.stringify(redacted, null, indent)}${/\s$/.test(text) ? "\n" : ""}`;
  }
  const lines = text.split("\n");
  const out: string[] = [];
  for (const line of lines) {
    if (line.trim() === "") {
      out.push(line);
      continue;
    }
    const parsed = parseJson(line);
    if (!parsed.ok) return redactSecrets(text, knownSecrets);
    const redacted = redactJsonValue(parsed.value, knownSecrets);
    out.push(redacted === parsed.value ? line : JSON.stringify(redacted));
  }
  return out.join("\n");
}
