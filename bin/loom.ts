#!/usr/bin/env node
import { createNodeIo } from "./cli-io.ts";
import { runCli } from "./run-cli.ts";

process.exitCode = await runCli(process.argv.slice(2), createNodeIo());
