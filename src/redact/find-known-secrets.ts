/**
 * Where the job's own secret values (the model key, the tokens it holds) appear in a text, plain or
 * encoded the ways a value is usually smuggled out: percent (URL) encoding, hexadecimal (either
 * case), and base64 / base64url in any of the three alignments a value takes inside a longer
 * base64 stream. Not covered: base64 wrapped across lines, double encodings, other encodings
 * (base32, ROT13, reversed, split in pieces).
 */

export const KNOWN_SECRET_ENCODINGS = ["plain", "percent", "base64", "base64url", "hex"] as const;
export type KnownSecretEncoding = (typeof KNOWN_SECRET_ENCODINGS)[number];

/** One occurrence; `start`/`end` are offsets into the scanned text. The value is never part of it. */
export type KnownSecretMatch = { encoding: KnownSecretEncoding; start: number; end: number };

/**
 * Values shorter than this are not looked for: a short value (and its 2-character hex bytes, its
 * few base64 characters) appears in ordinary text by chance, and masking it would shred logs.
 */
export const MIN_KNOWN_SECRET_LENGTH = 8;

type Form = { encoding: KnownSecretEncoding; regex: RegExp };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function toBinaryString(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += String.fromCharCode(byte);
  return out;
}

/**
 * The base64 characters of `bytes` that do not depend on their neighbours, for each offset mod 3
 * the value can start at inside a longer stream: character `i` covers bits `6i..6i+6`, and only
 * those wholly inside the value's bits are kept (the partial edge characters are dropped).
 */
export function listBase64Cores(bytes: Uint8Array): string[] {
  const cores: string[] = [];
  for (const shift of [0, 1, 2]) {
    const padded = new Uint8Array(shift + bytes.length);
    padded.set(bytes, shift);
    const encoded = btoa(toBinaryString(padded)).replace(/=+$/, "");
    const first = Math.ceil((8 * shift) / 6);
    const last = Math.floor((8 * (shift + bytes.length)) / 6);
    cores.push(encoded.slice(first, last));
  }
  return cores;
}

function toHex(bytes: Uint8Array): string {
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * A character as itself or percent-encoded (its UTF-8 bytes, hex digits in either case; a space
 * also as `+`). Letters and digits too: escaping every byte is the easiest way around a scanner.
 */
function percentAlternative(char: string): string {
  const hex = toHex(new TextEncoder().encode(char));
  const escaped = hex
    .replace(/(..)/g, "%$1")
    .replace(/[a-f]/g, (digit) => `[${digit}${digit.toUpperCase()}]`);
  return `(?:${escapeRegExp(char)}|${escaped}${char === " " ? "|\\+" : ""})`;
}

function listForms(value: string): Form[] {
  const bytes = new TextEncoder().encode(value);
  const forms: Form[] = [{ encoding: "plain", regex: new RegExp(escapeRegExp(value), "g") }];
  forms.push({ encoding: "percent", regex: new RegExp([...value].map(percentAlternative).join(""), "g") });
  const cores = [...new Set(listBase64Cores(bytes))];
  for (const core of cores) forms.push({ encoding: "base64", regex: new RegExp(escapeRegExp(core), "g") });
  for (const core of cores.filter((c) => /[+/]/.test(c)))
    forms.push({
      encoding: "base64url",
      regex: new RegExp(escapeRegExp(core.replaceAll("+", "-").replaceAll("/", "_")), "g"),
    });
  forms.push({ encoding: "hex", regex: new RegExp(toHex(bytes), "gi") });
  return forms;
}

/** The values to look for: each long-enough value, and its trimmed copy (secrets pasted with a newline). */
function listValues(secrets: readonly string[]): string[] {
  const values = new Set<string>();
  for (const secret of secrets)
    for (const value of [secret, secret.trim()])
      if (value.length >= MIN_KNOWN_SECRET_LENGTH) values.add(value);
  return [...values];
}

const compiled = new Map<string, Form[]>();

function formsOf(value: string): Form[] {
  let forms = compiled.get(value);
  if (forms === undefined) {
    if (compiled.size > 64) compiled.clear();
    forms = listForms(value);
    compiled.set(value, forms);
  }
  return forms;
}

/** Every occurrence of the secret values in `text`, in any of the encodings above (may overlap). */
export function findKnownSecrets(text: string, secrets: readonly string[]): KnownSecretMatch[] {
  const matches: KnownSecretMatch[] = [];
  for (const value of listValues(secrets)) {
    for (const { encoding, regex } of formsOf(value)) {
      for (const match of text.matchAll(regex)) {
        // A percent form that matched the value itself is the plain form, already reported.
        if (encoding === "percent" && match[0] === value) continue;
        matches.push({ encoding, start: match.index, end: match.index + match[0].length });
      }
    }
  }
  return matches.sort((a, b) => a.start - b.start || b.end - a.end);
}

/**
 * The literal strings the values take in those encodings (plain, percent as `encodeURIComponent`
 * writes it, the base64 and base64url cores, hex in both cases): for maskers that take literals,
 * such as the Actions runner's `::add-mask::`.
 */
export function listKnownSecretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const value of listValues(secrets)) {
    const bytes = new TextEncoder().encode(value);
    forms.add(value);
    forms.add(encodeURIComponent(value));
    for (const core of listBase64Cores(bytes)) {
      forms.add(core);
      forms.add(core.replaceAll("+", "-").replaceAll("/", "_"));
    }
    const hex = toHex(bytes);
    forms.add(hex);
    forms.add(hex.toUpperCase());
  }
  return [...forms];
}
