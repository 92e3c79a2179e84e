#!/usr/bin/env node
// The `gatehouse` command: loads the TypeScript sources through tsx, then runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
