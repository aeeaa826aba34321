import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parse } from "yaml";
import { z } from "zod";
import { createCommitReader } from "./read-commit.ts";
import { findStandIn, type StandIn } from "./stand-ins/stand-ins.ts";

/**
 * Where `loom-dev/loom/…@<sha>` comes from:
 * - `pinned`: this repository's history at that SHA, as GitHub fetches the commit a caller pins. The
 *   README caller's test runs so (test/e2e/quick-start.test.ts): what a user copies runs the release
 *   it pins, with that release's committed `action/dist`.
 * - `working-tree`: this checkout, whatever the SHA: the e2e tests of the current tree
 *   (test/e2e/harness.ts) run its stage workflows and action, the committed bundle or, with
 *   `LOOM_E2E_ENTRY=src`, the TypeScript entry (`entry`).
 */
export type LoomSource = {
  /** The `owner/name` loom's workflows and action are referenced by. */
  repository: string;
  mode: "pinned" | "working-tree";
  /** This repository's root (its git history and working tree). */
  root: string;
  /** working-tree: run the action's committed bundle or its TypeScript sources. */
  entry: "dist" | "src";
};

/** A `uses:` the executor cannot run: the test fails naming it, never skips the step. */
export class UnknownUses extends Error {
  override name = "UnknownUses";
}

/** A JavaScript action: the command that runs its `main` (and `post`), and its declared inputs. */
export type NodeAction = {
  kind: "node";
  uses: string;
  dir: string;
  main: string[];
  post: string[] | null;
  /** Declared inputs with their defaults (a default may hold an expression, e.g. `${{ github.token }}`). */
  inputs: Map<string, string>;
};
export type ResolvedAction = NodeAction | { kind: "stand-in"; uses: string; standIn: StandIn };

const ActionYaml = z.object({
  inputs: z
    .record(
      z.string(),
      z.object({ default: z.union([z.string(), z.number(), z.boolean()]).optional() }).nullable(),
    )
    .optional(),
  runs: z.object({
    using: z.string(),
    main: z.string(),
    post: z.string().optional(),
    pre: z.string().optional(),
  }),
});

/** `owner/name[/path]@ref` → its parts; null for `./local`, `docker://…` and anything else. */
export function parseUses(uses: string): { repository: string; path: string; ref: string } | null {
  const match = /^([\w.-]+\/[\w.-]+)(?:\/([^@]+))?@(.+)$/.exec(uses);
  if (!match) return null;
  return { repository: match[1] ?? "", path: match[2] ?? "", ref: match[3] ?? "" };
}

export function createUsesResolver(source: LoomSource) {
  const history = createCommitReader(source.root);
  const isLoom = (repository: string): boolean =>
    repository.toLowerCase() === source.repository.toLowerCase();

  async function readActionDir(ref: string, dir: string): Promise<string> {
    const root = source.mode === "pinned" ? await history.extractTree(ref) : source.root;
    return path.join(root, dir);
  }

  return {
    /** A called workflow's text (`uses:` of a job). */
    async readWorkflow(uses: string): Promise<string> {
      const parsed = parseUses(uses);
      if (!parsed || !isLoom(parsed.repository) || !parsed.path.startsWith(".github/workflows/"))
        throw new UnknownUses(`the executor knows no reusable workflow ${uses}`);
      if (source.mode === "pinned") return history.readFile(parsed.ref, parsed.path);
      return readFile(path.join(source.root, parsed.path), "utf8");
    },
    /** A step's action: loom's own (a JavaScript action) or a first-party action's stand-in. */
    async resolveAction(uses: string): Promise<ResolvedAction> {
      const parsed = parseUses(uses);
      const standIn = findStandIn(uses);
      if (standIn) return { kind: "stand-in", uses, standIn };
      if (!parsed || !isLoom(parsed.repository))
        throw new UnknownUses(
          `the executor has no stand-in for ${uses} (stand-ins are keyed by owner/name@sha as pinned)`,
        );
      const dir = await readActionDir(parsed.ref, parsed.path);
      const manifest = ActionYaml.parse(parse(await readFile(path.join(dir, "action.yml"), "utf8")));
      if (!/^node(20|24)$/.test(manifest.runs.using) || manifest.runs.pre)
        throw new UnknownUses(
          `${uses}: the executor runs JavaScript actions (node24, main and post), not ${manifest.runs.using}`,
        );
      const inputs = new Map(
        Object.entries(manifest.inputs ?? {}).map(([name, spec]) => [
          name,
          spec?.default === undefined ? "" : String(spec.default),
        ]),
      );
      const main =
        source.mode === "working-tree" && source.entry === "src" && parsed.path === "action"
          ? typescriptEntry(path.join(source.root, "action/src/main.ts"))
          : [path.join(dir, manifest.runs.main)];
      return {
        kind: "node",
        uses,
        dir,
        main,
        post: manifest.runs.post ? [path.join(dir, manifest.runs.post)] : null,
        inputs,
      };
    },
  };
}

export type UsesResolver = ReturnType<typeof createUsesResolver>;

/**
 * The action's TypeScript entry, started as its bundle is (Node 24 strips the types): it exports
 * `main`, which the bundle calls at load. Loading the sources costs each job about a second of CPU more
 * (hundreds of modules), so the e2e runs use the bundle unless `LOOM_E2E_ENTRY=src`.
 */
function typescriptEntry(file: string): string[] {
  return [
    "--input-type=module",
    "-e",
    "const m = await import(process.argv[1]); await m.main?.();",
    pathToFileURL(file).href,
  ];
}
