#!/usr/bin/env node
// `npm start`. Node.js older than 22.6 cannot even load a `.ts` file (ERR_UNKNOWN_FILE_EXTENSION),
// so this plain JavaScript entry checks the version first and says what to do, then loads the App.
const MINIMUM_NODE_MAJOR = 24;
const major = Number(process.versions.node.split(".")[0]);
if (major < MINIMUM_NODE_MAJOR) {
  console.error(
    `loom needs Node.js ${MINIMUM_NODE_MAJOR} or newer (this is ${process.version}): install it, or run \`nvm use\` (the repository has .nvmrc)`,
  );
  process.exit(1);
}
await import("./main.ts");
