import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { redactSecrets } from "../../../src/redact/redact-secrets.ts";
import { TRANSCRIPT_ARTIFACT, TRANSCRIPT_FILE, type UploadArtifact } from "./artifact-port.ts";

/** The transcript leaves the job only redacted. */
export async function uploadTranscript(
  deps: { tempDir: string; knownSecrets: readonly string[]; uploadArtifact: UploadArtifact },
  transcriptPath: string,
): Promise<void> {
  const text = await readFile(transcriptPath, "utf8").catch(() => null);
  if (text === null) return;
  const dir = path.join(deps.tempDir, "transcript-redacted");
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, TRANSCRIPT_FILE);
  await writeFile(file, redactSecrets(text, deps.knownSecrets));
  await deps.uploadArtifact(TRANSCRIPT_ARTIFACT, [file], dir);
}
