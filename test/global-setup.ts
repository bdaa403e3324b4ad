import { buildConsole } from '../console/build.mjs';

// Runs once per `npm test`: the one line that says the PostgreSQL half of the store tests is off,
// and the console built from this checkout's sources (once: test files that rebuilt it each would
// remove each other's files while they run side by side).
export default async function setup(): Promise<void> {
  if (!process.env.PARLEY_TEST_DATABASE_URL) {
    console.log('PostgreSQL tests skipped: PARLEY_TEST_DATABASE_URL is not set (SQLite tests run)');
  }
  await buildConsole();
}
