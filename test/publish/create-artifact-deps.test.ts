import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ArtifactClient } from "@actions/artifact";
import { createArtifactDeps } from "../../action/src/publish/create-artifact-deps.ts";

describe("createArtifactDeps", () => {
  it("downloads this run's artifact by name into the directory and uploads files from a root", async () => {
    const calls: unknown[] = [];
    const client = {
      getArtifact: (name: string) => {
        calls.push(["get", name]);
        return Promise.resolve({ artifact: { id: 42, name, size: 1 } });
      },
      downloadArtifact: (id: number, options?: { path?: string }) => {
        calls.push(["download", id, options?.path]);
        return Promise.resolve({ downloadPath: options?.path });
      },
      uploadArtifact: (name: string, files: string[], root: string) => {
        calls.push(["upload", name, files, root]);
        return Promise.resolve({ id: 7, size: 1 });
      },
    } as unknown as ArtifactClient;
    const deps = createArtifactDeps(client);
    await deps.downloadArtifact("loom-bundle", "/tmp/x");
    await deps.uploadArtifact("loom-publish", ["/tmp/y/loom-publish.json"], "/tmp/y");
    assert.deepEqual(calls, [
      ["get", "loom-bundle"],
      ["download", 42, "/tmp/x"],
      ["upload", "loom-publish", ["/tmp/y/loom-publish.json"], "/tmp/y"],
    ]);
  });

  it("fails the download when the artifact does not exist, so publish records bundle-invalid", async () => {
    const client = {
      getArtifact: () => Promise.reject(new Error("Artifact not found for name: loom-bundle")),
    } as unknown as ArtifactClient;
    await assert.rejects(createArtifactDeps(client).downloadArtifact("loom-bundle", "/tmp/x"), /not found/);
  });
});
