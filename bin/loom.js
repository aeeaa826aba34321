#!/usr/bin/env node
// The `loom` command. Node.js before 22.6 cannot even load a `.ts` file (ERR_UNKNOWN_FILE_EXTENSION)
// and loom needs 24, so this plain JavaScript entry checks the version first and says what to do,
// then loads the TypeScript CLI. Keep it syntax an old Node.js can parse.
const MINIMUM_NODE_MAJOR = 24;
const major = Number(process.versions.node.split(".")[0]);
if (major < MINIMUM_NODE_MAJOR) {
  console.error(
    `loom needs Node.js ${MINIMUM_NODE_MAJOR} or newer (this is ${process.version}): install it, or run \`nvm use\` in the loom checkout (it has .nvmrc)`,
  );
  process.exit(1);
}
await import("./loom.ts");
