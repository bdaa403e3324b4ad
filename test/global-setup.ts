import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { buildConsole } from '../console/build.mjs';
import { PACKAGE_ROOT } from '../src/core/index.ts';

// Runs once per `npm test`: the one line that says the PostgreSQL half of the store tests is off,
// the console built from this checkout's sources (once: test files that rebuilt it each would
// remove each other's files while they run side by side), and the server's build in dist/ (what
// `npm start` runs, which test/e2e starts) made again when a source is newer than it.
export default async function setup(): Promise<void> {
  if (!process.env.PARLEY_TEST_DATABASE_URL) {
    console.log('PostgreSQL tests skipped: PARLEY_TEST_DATABASE_URL is not set (SQLite tests run)');
  }
  await buildConsole();
  if (newestSource() > builtAt()) {
    execFileSync(
      process.execPath,
      [join(PACKAGE_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      {
        cwd: PACKAGE_ROOT,
        stdio: 'inherit',
      },
    );
  }
}

/** The newest modification time of the TypeScript the build is made from (ms). */
function newestSource(): number {
  let newest = 0;
  for (const dir of ['src', 'cli', 'sdk', 'mcp']) {
    for (const entry of readdirSync(join(PACKAGE_ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts')) {
        newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
      }
    }
  }
  return Math.max(newest, statSync(join(PACKAGE_ROOT, 'tsconfig.build.json')).mtimeMs);
}

/** When the build was made (ms), 0 when there is none. */
function builtAt(): number {
  try {
    return statSync(join(PACKAGE_ROOT, 'dist/cli/main.js')).mtimeMs;
  } catch {
    return 0;
  }
}
