import { countCall, readStatus, toEffectError } from "./effect-context.ts";
import type { ReaderContext } from "./effect-context.ts";
import { readConditional } from "./read-conditional.ts";
import { readZip } from "./read-zip.ts";

export type RunArtifact = {
  id: number;
  name: string;
  sizeInBytes: number;
  createdAt: string;
  expired: boolean;
};

/** Largest artifact loom downloads (result, publish, heartbeat are small JSON files). */
const MAX_ARTIFACT_BYTES = 16 * 1024 * 1024;

/**
 * The run's artifacts (the newest 100; conditional, so polling an unchanged run is free).
 * Expired ones are left out.
 */
export async function listRunArtifacts(
  ctx: ReaderContext,
  label: string,
  runId: number,
): Promise<RunArtifact[]> {
  try {
    const { data } = await readConditional(
      ctx,
      label,
      `artifacts:${ctx.owner}/${ctx.repo}:${runId}`,
      (headers) =>
        ctx.octokit.rest.actions.listWorkflowRunArtifacts({
          owner: ctx.owner,
          repo: ctx.repo,
          run_id: runId,
          per_page: 100,
          headers,
        }),
    );
    return data.artifacts
      .filter((a) => !a.expired)
      .map((a) => ({
        id: a.id,
        name: a.name,
        sizeInBytes: a.size_in_bytes,
        createdAt: a.created_at ?? "",
        expired: a.expired,
      }));
  } catch (error) {
    throw toEffectError(`listing artifacts of run ${runId}`, error);
  }
}

/** The newest artifact named exactly `name` (duplicates happen after a finalize timeout). */
export function findNewestArtifact(artifacts: readonly RunArtifact[], name: string): RunArtifact | null {
  return (
    artifacts
      .filter((a) => a.name === name)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)[0] ?? null
  );
}

export type ArtifactFile = { ok: true; text: string } | { ok: false; reason: string };

type ArtifactFiles = { ok: true; files: Map<string, Buffer> } | { ok: false; reason: string };

/**
 * Downloads an artifact (`GET …/artifacts/{id}/zip` answers 302 to a short-lived URL, which is
 * followed) and returns the text of `fileName` inside it, or (unless `exact`) of its only `.json`
 * file. Artifacts never change in place, so an artifact is downloaded once per id: a second file
 * of the same artifact costs no request.
 */
export async function readArtifactFile(
  ctx: ReaderContext,
  label: string,
  artifact: RunArtifact,
  fileName: string,
  options: { exact?: boolean } = {},
): Promise<ArtifactFile> {
  const zip = await downloadArtifactFiles(ctx, label, artifact);
  if (!zip.ok) return zip;
  const json = [...zip.files.keys()].filter((name) => name.endsWith(".json"));
  const only = !options.exact && json.length === 1 && json[0] ? zip.files.get(json[0]) : undefined;
  const content = zip.files.get(fileName) ?? only;
  return content
    ? { ok: true, text: content.toString("utf8") }
    : { ok: false, reason: `${artifact.name} holds no ${fileName}` };
}

async function downloadArtifactFiles(
  ctx: ReaderContext,
  label: string,
  artifact: RunArtifact,
): Promise<ArtifactFiles> {
  const cacheKey = `artifact:${ctx.owner}/${ctx.repo}:${artifact.id}`;
  const cached = ctx.cache?.artifacts.get(cacheKey) as ArtifactFiles | undefined;
  if (cached) return cached;
  if (artifact.sizeInBytes > MAX_ARTIFACT_BYTES) {
    return { ok: false, reason: `${artifact.name} is too large (${artifact.sizeInBytes} bytes)` };
  }
  countCall(ctx.calls, label);
  let archive: ArrayBuffer;
  try {
    const response = await ctx.octokit.rest.actions.downloadArtifact({
      owner: ctx.owner,
      repo: ctx.repo,
      artifact_id: artifact.id,
      archive_format: "zip",
    });
    archive = response.data as ArrayBuffer;
  } catch (error) {
    if (readStatus(error) === 410) return { ok: false, reason: `${artifact.name} has expired` };
    throw toEffectError(`downloading ${artifact.name}`, error);
  }
  const zip = readZip(new Uint8Array(archive));
  const result: ArtifactFiles = zip.ok
    ? { ok: true, files: zip.files }
    : { ok: false, reason: `${artifact.name}: ${zip.reason}` };
  ctx.cache?.artifacts.set(cacheKey, result);
  return result;
}

/** Parses the JSON text of an artifact file with a zod schema; a reason when it does not fit. */
export function parseArtifactJson<T>(
  file: ArtifactFile,
  schema: {
    safeParse(value: unknown): { success: true; data: T } | { success: false; error: { message: string } };
  },
): { ok: true; value: T } | { ok: false; reason: string } {
  if (!file.ok) return file;
  let value: unknown;
  try {
    value = JSON.parse(file.text);
  } catch (error) {
    return { ok: false, reason: `not JSON: ${(error as Error).message}` };
  }
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, reason: `does not fit the schema: ${parsed.error.message}` };
}
