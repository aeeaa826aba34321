import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createArtifactClient } from "../../action/src/upload/create-artifact-client.ts";

/**
 * Run as a job step would (environment from `emulator.runnerEnv`): uploads `loom-result` with the
 * action's real artifact client, then reads it back by run id as another run would. Prints JSON.
 */
const dir = process.argv[2] ?? "";
const [owner = "", repo = ""] = (process.env["GITHUB_REPOSITORY"] ?? "").split("/");
const runId = Number(process.env["GITHUB_RUN_ID"]);
const client = createArtifactClient();
await mkdir(path.join(dir, "out"), { recursive: true });
const file = path.join(dir, "loom-result.json");
await writeFile(file, JSON.stringify({ ok: true, runId }));
await client.upload("loom-result", [file], dir);
const source = { runId, token: process.env["GITHUB_TOKEN"] ?? "", owner, repo };
const listed = await client.reader.list(source);
const first = listed[0];
if (!first) throw new Error("the uploaded artifact is not listed");
await client.reader.download(source, first.id, path.join(dir, "out"));
const back = await readFile(path.join(dir, "out", "loom-result.json"), "utf8");
process.stdout.write(
  `${JSON.stringify({ listed: listed.map((a) => a.name), back: JSON.parse(back) as unknown })}\n`,
);
