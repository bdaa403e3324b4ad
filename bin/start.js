#!/usr/bin/env node
// `npm start`: `parley serve` from the JavaScript `npm ci` built into dist/ (tsconfig.build.json),
// so a node starts without transpiling its sources. `bin/parley.js` runs the TypeScript (tsx) for
// development and the tests.
import { existsSync } from 'node:fs';

const main = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('parley: no build in dist/: `npm ci` makes it, or `npm run build`\n');
  process.exit(1);
}
process.argv.splice(2, 0, 'serve');
await import(main.href);
