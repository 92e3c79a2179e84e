#!/usr/bin/env node
// The `gatehouse` command: the compiled CLI (dist/, built by `npm run build` or on install).
import { runCli } from '../dist/src/cli/main.js';

process.exitCode = await runCli(process.argv.slice(2));
