import { OUTPUT_TAIL_MAX } from "../../../src/artifacts/stage-result.ts";
import { redactSecrets } from "../../../src/redact/redact-secrets.ts";

/**
 * The end of a check's output for `loom-result`: failures first (what a person needs), then the
 * tails of stderr and stdout, redacted, within `OUTPUT_TAIL_MAX` characters.
 */
export function tailOutput(
  parts: { failures?: readonly string[]; stdout?: string; stderr?: string },
  knownSecrets: readonly string[],
  max = OUTPUT_TAIL_MAX,
): string {
  const sections: string[] = [];
  if (parts.failures !== undefined && parts.failures.length > 0) sections.push(parts.failures.join("\n"));
  if (parts.stderr !== undefined && parts.stderr.trim() !== "")
    sections.push(`--- stderr ---\n${parts.stderr.trimEnd()}`);
  if (parts.stdout !== undefined && parts.stdout.trim() !== "")
    sections.push(`--- stdout ---\n${parts.stdout.trimEnd()}`);
  const text = redactSecrets(sections.join("\n"), knownSecrets);
  if (text.length <= max) return text;
  const head = parts.failures?.join("\n") ?? "";
  const marker = "\n… (cut) …\n";
  const keepHead = head.length < max / 2 ? redactSecrets(head, knownSecrets) : "";
  const room = max - keepHead.length - marker.length;
  return `${keepHead}${marker}${text.slice(text.length - room)}`;
}
