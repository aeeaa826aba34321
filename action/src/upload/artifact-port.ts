/** Upload `files` (absolute paths inside `rootDirectory`) as the named artifact of this run. */
export type UploadArtifact = (name: string, files: string[], rootDirectory: string) => Promise<void>;

/** Where another run's artifacts are: that run's id and a token that may read its artifacts. */
export type ArtifactSource = { runId: number; token: string; owner: string; repo: string };

/** The artifacts of another run, newest first; download one into `directory`. */
export type ArtifactReader = {
  list: (source: ArtifactSource) => Promise<{ id: number; name: string; createdAt: number }[]>;
  download: (source: ArtifactSource, artifactId: number, directory: string) => Promise<void>;
};

/** The job's artifacts: upload, read another run's, download this run's by name (another job's). */
export type JobArtifacts = {
  upload: UploadArtifact;
  reader: ArtifactReader;
  download: (name: string, directory: string) => Promise<void>;
};

/** Artifact names the action writes. */
export const RESULT_ARTIFACT = "loom-result";
export const RESULT_FILE = "loom-result.json";
export const TRANSCRIPT_ARTIFACT = "loom-transcript";
export const TRANSCRIPT_FILE = "transcript.jsonl";
export const HEARTBEAT_ARTIFACT_PREFIX = "loom-heartbeat-";
export const HEARTBEAT_FILE = "heartbeat.json";
/** Heartbeat uploads per run at most, leaving room under GitHub's 500 artifacts a job. */
export const MAX_HEARTBEAT_ARTIFACTS = 400;
/**
 * Heartbeats closer together than this are not uploaded (the next periodic one carries the news):
 * 400 uploads at ≥ 30 s apart last 3 h 20 min, longer than the stage job may run.
 */
export const MIN_HEARTBEAT_UPLOAD_GAP_MS = 30_000;
