#!/usr/bin/env node
// The `loom` command: refuses an old Node.js with one line (require-node.js), then loads the
// TypeScript CLI.
import { requireNode } from "./require-node.js";

requireNode();
await import("./loom.ts");
