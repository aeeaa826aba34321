#!/usr/bin/env node
// `npm start`: refuses an old Node.js with one line (bin/require-node.js), then loads the App.
import { requireNode } from "../bin/require-node.js";

requireNode();
await import("./main.ts");
