#!/usr/bin/env node
// Runs a TypeScript file with tsx's loader: `node bin/tsx-run.js path/to/file.ts [args]`.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

const file = process.argv[2];
if (!file) {
  console.error('usage: tsx-run.js FILE.ts [args]');
  process.exit(2);
}
register();
process.argv.splice(1, 1);
await import(pathToFileURL(resolve(file)).href);
