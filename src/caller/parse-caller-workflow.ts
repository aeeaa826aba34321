import { parse, YAMLParseError } from "yaml";

/** What the caller's job grants the stage workflow: a level per scope, `read-all`/`write-all`, or nothing said. */
export type CallerGrants = Readonly<Record<string, string>> | "read-all" | "write-all" | null;

/** The caller's `uses:` of loom's stage workflow. */
export type StageWorkflowUse = {
  /** `owner/name`, or null for the repository's own copy (`./.github/workflows/loom-stage.yml`). */
  repository: string | null;
  workflow: "loom-stage.yml" | "loom-stage-oidc.yml";
  /** What follows `@` (a commit, a tag, a branch); null for the repository's own copy. */
  ref: string | null;
  /** The line of the caller that says so (1-based) and its text, trimmed. */
  line: number;
  text: string;
};

export type CallerWorkflow = {
  uses: StageWorkflowUse;
  /** The `workflow_dispatch` inputs the caller declares, by name. */
  inputs: Readonly<Record<string, { required: boolean }>>;
  /** The calling job's `permissions:`, else the workflow's; null when neither sets any (the repository's default). */
  grants: CallerGrants;
};

export type ParsedCaller =
  { ok: true; caller: CallerWorkflow } | { ok: false; problem: string; line: number | null };

const USES =
  /^(?:([A-Za-z0-9-]+\/[A-Za-z0-9._-]+)\/|\.\/)\.github\/workflows\/(loom-stage(?:-oidc)?\.yml)(?:@(\S+))?$/;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `on:` as a map of triggers (`on: workflow_dispatch`, `on: [push, workflow_dispatch]` too). */
function readTriggers(on: unknown): Json {
  if (typeof on === "string") return { [on]: null };
  if (Array.isArray(on)) return Object.fromEntries(on.map((name) => [String(name), null]));
  return isObject(on) ? on : {};
}

function readGrants(value: unknown): CallerGrants {
  if (value === "read-all" || value === "write-all") return value;
  if (!isObject(value)) return null;
  return Object.fromEntries(Object.entries(value).map(([scope, level]) => [scope, String(level)]));
}

/** The first line of `text` holding `uses:` and `value`, 1-based (the value as written may be quoted). */
function findUsesLine(text: string, value: string): { line: number; text: string } {
  const lines = text.split("\n");
  const index = lines.findIndex((line) => /\buses\s*:/.test(line) && line.includes(value));
  return { line: index + 1, text: (lines[index] ?? `uses: ${value}`).trim() };
}

/**
 * Reads a caller workflow (`.github/workflows/<workflow>` on the default branch): the job that calls
 * loom's stage workflow, the ref it pins, the `workflow_dispatch` inputs it declares and what its job
 * grants. A file loom cannot use says why, with the line when there is one.
 */
export function parseCallerWorkflow(text: string): ParsedCaller {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    if (!(error instanceof YAMLParseError)) throw error;
    // The first line of the message; the rest is a drawing of the spot.
    const message = error.message.split("\n")[0] ?? "";
    return { ok: false, problem: `it is not valid YAML: ${message}`, line: error.linePos?.[0].line ?? null };
  }
  if (!isObject(document)) return { ok: false, problem: "it is not a workflow (a YAML mapping)", line: 1 };
  // YAML 1.1 reads a bare `on:` as `true`; the yaml package (1.2) keeps "on".
  const dispatch = readTriggers(document["on"] ?? document["true"])["workflow_dispatch"];
  if (dispatch === undefined)
    return {
      ok: false,
      problem: "it has no `workflow_dispatch` trigger, and loom starts every stage by dispatching it",
      line: null,
    };
  const jobs = isObject(document["jobs"]) ? document["jobs"] : {};
  for (const job of Object.values(jobs)) {
    if (!isObject(job) || typeof job["uses"] !== "string") continue;
    const match = USES.exec(job["uses"].trim());
    if (match === null) continue;
    const declared = isObject(dispatch) && isObject(dispatch["inputs"]) ? dispatch["inputs"] : {};
    const inputs = Object.fromEntries(
      Object.entries(declared).map(([name, spec]) => [
        name,
        { required: isObject(spec) && spec["required"] === true },
      ]),
    );
    return {
      ok: true,
      caller: {
        uses: {
          repository: match[1] ?? null,
          workflow: match[2] === "loom-stage-oidc.yml" ? "loom-stage-oidc.yml" : "loom-stage.yml",
          ref: match[3] ?? null,
          ...findUsesLine(text, job["uses"].trim()),
        },
        inputs,
        grants: readGrants(job["permissions"] ?? document["permissions"]),
      },
    };
  }
  return {
    ok: false,
    problem:
      "no job calls loom's stage workflow (`uses: <owner>/<repo>/.github/workflows/loom-stage.yml@<release commit>`)",
    line: null,
  };
}
