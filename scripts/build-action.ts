/**
 * Builds the action's bundle: `action/dist/main.js` (the entry `action.yml` runs) and one file per
 * Claude Code hook program, `action/dist/hooks/<event>.js`. ESM for Node 24; CommonJS
 * dependencies get a `require` through a `createRequire` banner. Deterministic: the same sources
 * give the same bytes (test/action/dist-fresh.test.ts rebuilds and compares).
 *
 * Usage: node scripts/build-action.ts [out-dir]   (default: action/dist)
 */
import { build, type BuildOptions } from "esbuild";
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { HOOK_EVENTS } from "../action/src/session/hook-settings.ts";

const root = path.resolve(import.meta.dirname, "..");
const outDir = path.resolve(process.argv[2] ?? path.join(root, "action/dist"));

const banner = [
  "// Built by scripts/build-action.ts: do not edit. Rebuild with `npm run build`.",
  'import { createRequire as __loomCreateRequire } from "node:module";',
  "const require = __loomCreateRequire(import.meta.url);",
].join("\n");

const common: BuildOptions = {
  absWorkingDir: root,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node24",
  banner: { js: banner },
  legalComments: "eof",
  // Smaller committed files; identifiers are kept so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  charset: "utf8",
  logLevel: "warning",
  // Deterministic output: no metafile, no source maps with absolute paths.
  sourcemap: false,
  // Module paths baked into the bundle stay relative to the checkout even when node_modules is a link.
  preserveSymlinks: true,
};

/** Hook programs are the `hooks/*.ts` files named after a hook event; the rest are helpers. */
async function listHookEntries(): Promise<string[]> {
  const programs = new Set<string>(Object.values(HOOK_EVENTS));
  const files = await readdir(path.join(root, "hooks")).catch(() => [] as string[]);
  return files
    .filter((file) => file.endsWith(".ts") && programs.has(file.slice(0, -3)))
    .sort()
    .map((file) => path.join("hooks", file));
}

await rm(outDir, { recursive: true, force: true });
await build({
  ...common,
  stdin: {
    contents: 'import { main } from "./main.ts";\nawait main();\n',
    resolveDir: path.join(root, "action/src"),
    sourcefile: "action-entry.ts",
    loader: "ts",
  },
  outfile: path.join(outDir, "main.js"),
});
const hooks = await listHookEntries();
if (hooks.length > 0) {
  // One shared chunk for what the hooks have in common (zod): content-hashed names, deterministic.
  await build({
    ...common,
    entryPoints: hooks,
    outdir: path.join(outDir, "hooks"),
    entryNames: "[name]",
    chunkNames: "chunks/[name]-[hash]",
    splitting: true,
  });
}
console.log(
  `built ${path.relative(root, outDir) || outDir}: main.js${hooks.map((h) => `, hooks/${path.basename(h, ".ts")}.js`).join("")}`,
);
