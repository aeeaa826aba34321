import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createJobArtifacts } from "../../action/src/upload/create-job-artifacts.ts";

/**
 * Run as a job step would on GHES (environment from `emulator.runnerEnv` with `ghes: true`):
 * uploads `loom-result` and a file of `argv[3]` bytes as `loom-bundle` with the action's own
 * artifact ports (chosen by GITHUB_SERVER_URL), then downloads `loom-result` by name within the
 * run, as the publish job does. Prints JSON; exits 1 with the error when an upload fails.
 */
const dir = process.argv[2] ?? "";
const bigBytes = Number(process.argv[3] ?? "0");
const runId = Number(process.env["GITHUB_RUN_ID"]);
const artifacts = createJobArtifacts(process.env);
const file = path.join(dir, "loom-result.json");
await writeFile(file, JSON.stringify({ ok: true, runId }));
try {
  await artifacts.upload("loom-result", [file], dir);
  if (bigBytes > 0) {
    const big = path.join(dir, "big", "bundle.bin");
    await mkdir(path.dirname(big), { recursive: true });
    // Incompressible: uploaded as-is, in 8 MiB chunks.
    await writeFile(big, randomBytes(bigBytes));
    await artifacts.upload("loom-bundle", [big], path.dirname(big));
  }
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
  process.exit(1);
}
await mkdir(path.join(dir, "out"), { recursive: true });
await artifacts.download("loom-result", path.join(dir, "out"));
const back = await readFile(path.join(dir, "out", "loom-result.json"), "utf8");
process.stdout.write(`${JSON.stringify({ back: JSON.parse(back) as unknown })}\n`);
