import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createArtifactDeps } from "../../action/src/publish/create-artifact-deps.ts";

describe("createArtifactDeps", () => {
  it("downloads this run's artifact by name into the directory and uploads files from a root", async () => {
    const calls: unknown[] = [];
    const deps = createArtifactDeps({
      download: (name, directory) => {
        calls.push(["download", name, directory]);
        return Promise.resolve();
      },
      upload: (name, files, root) => {
        calls.push(["upload", name, files, root]);
        return Promise.resolve();
      },
    });
    await deps.downloadArtifact("loom-bundle", "/tmp/x");
    await deps.uploadArtifact("loom-publish", ["/tmp/y/loom-publish.json"], "/tmp/y");
    assert.deepEqual(calls, [
      ["download", "loom-bundle", "/tmp/x"],
      ["upload", "loom-publish", ["/tmp/y/loom-publish.json"], "/tmp/y"],
    ]);
  });

  it("fails the download when the artifact does not exist, so publish records bundle-invalid", async () => {
    const deps = createArtifactDeps({
      download: () => Promise.reject(new Error("Artifact not found for name: loom-bundle")),
      upload: () => Promise.resolve(),
    });
    await assert.rejects(deps.downloadArtifact("loom-bundle", "/tmp/x"), /not found/);
  });
});
