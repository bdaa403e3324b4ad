// Runs once per `npm test`: the one line that says the PostgreSQL half of the store tests is off.
export default function setup(): void {
  if (!process.env.PARLEY_TEST_DATABASE_URL) {
    console.log('PostgreSQL tests skipped: PARLEY_TEST_DATABASE_URL is not set (SQLite tests run)');
  }
}
