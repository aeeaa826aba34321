// Shared by the plain JavaScript entries (bin/loom.js, app/start.js): Node.js before 22.6 cannot
// even load a `.ts` file (ERR_UNKNOWN_FILE_EXTENSION) and loom needs 24, so each entry checks the
// version first and says what to do. Keep it syntax an old Node.js can parse.
const MINIMUM_NODE_MAJOR = 24;

/** Exits 1 with one line saying what to do when this Node.js is older than loom needs. */
export function requireNode() {
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= MINIMUM_NODE_MAJOR) return;
  console.error(
    `loom needs Node.js ${MINIMUM_NODE_MAJOR} or newer (this is ${process.version}): install it, or run \`nvm use\` in the loom checkout (it has .nvmrc)`,
  );
  process.exit(1);
}
