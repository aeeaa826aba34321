import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * The runner's tool cache for Claude Code: the workflow's `npm install --global
 * @anthropic-ai/claude-code@<version>` step runs as a real bash step, but against a tool cache where
 * that exact version is already installed, once per test process (a link to this checkout's
 * `node_modules`, what `npm ci` installed), so the install is a no-op as npm answers it ("up to
 * date"). Measured: a real `npm install --global --offline` cannot run here, since `npm ci` caches
 * tarballs but not the registry metadata an install by version needs (ENOTCACHED), and downloading
 * during tests is not allowed. A version other than package.json's pin fails the step loudly.
 * Every other npm command runs the real npm.
 */
export type ClaudeToolCache = {
  /** Put first on the runner's PATH: `claude` and the `npm` shim. */
  bin: string;
  version: string;
};

let cache: ClaudeToolCache | null = null;

export function prepareClaudeToolCache(root: string): ClaudeToolCache {
  if (cache) return cache;
  const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
    devDependencies: Record<string, string>;
  };
  const version = manifest.devDependencies["@anthropic-ai/claude-code"] ?? "";
  const installed = JSON.parse(
    readFileSync(path.join(root, "node_modules/@anthropic-ai/claude-code/package.json"), "utf8"),
  ) as { version: string };
  if (installed.version !== version)
    throw new Error(
      `node_modules holds @anthropic-ai/claude-code ${installed.version}, package.json pins ${version}: run npm ci`,
    );
  const dir = mkdtempSync(path.join(tmpdir(), "loom-toolcache-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const bin = path.join(dir, "bin");
  mkdirSync(bin);
  symlinkSync(
    path.join(root, "node_modules/@anthropic-ai/claude-code/bin/claude.exe"),
    path.join(bin, "claude"),
  );
  const realNpm = findOnPath("npm", bin);
  writeFileSync(path.join(bin, "npm"), npmShim(version, realNpm), { mode: 0o755 });
  cache = { bin, version };
  return cache;
}

function findOnPath(name: string, except: string): string {
  for (const dir of (process.env["PATH"] ?? "").split(path.delimiter)) {
    if (dir === "" || dir === except) continue;
    if (existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  throw new Error(`no ${name} on PATH`);
}

function npmShim(version: string, realNpm: string): string {
  return `#!/usr/bin/env bash
# The runner's tool cache holds @anthropic-ai/claude-code@${version} (package.json's pin).
install=0; global=0; claude=""; other=0
for arg in "$@"; do
  case "$arg" in
    install|i|add) install=1 ;;
    --global|-g) global=1 ;;
    @anthropic-ai/claude-code@*) claude="\${arg#@anthropic-ai/claude-code@}" ;;
    -*) ;;
    *) other=1 ;;
  esac
done
if [ "$install" = 1 ] && [ -n "$claude" ]; then
  if [ "$global" = 1 ] && [ "$other" = 0 ] && [ "$claude" = "${version}" ]; then
    echo ""
    echo "up to date in 0.1s"
    exit 0
  fi
  echo "npm error this runner's tool cache has @anthropic-ai/claude-code@${version} only (package.json's pin); the workflow asks for $*" >&2
  exit 1
fi
exec ${JSON.stringify(realNpm)} "$@"
`;
}
