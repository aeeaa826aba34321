import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { findKnownSecrets } from "../../../src/redact/find-known-secrets.ts";
import { redactArtifactText, redactJsonValue } from "../../../src/redact/redact-artifact-text.ts";
import { redactSecrets } from "../../../src/redact/redact-secrets.ts";
import type { RunStageDeps } from "../stage/run-stage-deps.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeText(bytes: Buffer): string | null {
  try {
    return utf8.decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) return null; // not UTF-8: a binary file
    throw error;
  }
}

/**
 * `deps` with every way out of the stage job guarded by the job's own secrets (`knownSecrets`, plain
 * and encoded) and the token patterns: each text file of an artifact (loom-result, heartbeats, the
 * transcript, the bundle manifest) is redacted in place before it is uploaded; a binary file that
 * holds a known secret is not uploaded (the bundle's commits are checked before it is made, see
 * `findSecretsInCommits`); the job summary and log lines are redacted.
 */
export function redactWaysOut(deps: RunStageDeps): RunStageDeps {
  const secrets = deps.knownSecrets;
  const log = (message: string, data?: Record<string, unknown>): void =>
    data === undefined
      ? deps.log(redactSecrets(message, secrets))
      : deps.log(redactSecrets(message, secrets), redactJsonValue(data, secrets) as Record<string, unknown>);
  return {
    ...deps,
    log,
    writeSummary: (markdown) => deps.writeSummary(redactSecrets(markdown, secrets)),
    uploadArtifact: async (name, files, rootDirectory) => {
      const kept: string[] = [];
      for (const file of files) {
        const bytes = await readFile(file);
        const text = decodeText(bytes);
        if (text === null) {
          if (findKnownSecrets(bytes.toString("latin1"), secrets).length === 0) kept.push(file);
          else
            log("not uploaded: the file holds one of the job's secrets", {
              artifact: name,
              file: path.basename(file),
            });
          continue;
        }
        const redacted = redactArtifactText(text, secrets);
        if (redacted !== text) await writeFile(file, redacted);
        kept.push(file);
      }
      if (kept.length > 0) await deps.uploadArtifact(name, kept, rootDirectory);
    },
  };
}
