import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from './database.ts';
import { TEST_DATABASE_URL } from './testing/index.ts';

// The migrator's introspection reads the store's own schema only, so schemas that other stores
// on the same database create and drop meanwhile cannot fail it (PostgreSQL only; the one line
// of test/global-setup.ts says when PostgreSQL tests are skipped).

describe.runIf(TEST_DATABASE_URL)('schema-scoped introspection [postgres]', () => {
  const url = TEST_DATABASE_URL ?? '';
  const suffix = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const mine = `parley_intro_a_${suffix}`;
  const other = `parley_intro_b_${suffix}`;
  let database: Database;

  const admin = async (query: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(query);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    await admin(`create schema ${other}; create table ${other}.elsewhere (id integer)`);
    database = await openDatabase({ dialect: 'postgres', url, schema: mine, poolSize: 1 });
    await admin(`create table ${mine}.here (id integer); create view ${mine}.here_view as select 1 as x`);
  });
  afterAll(async () => {
    await database.close();
    await admin(`drop schema if exists ${mine} cascade; drop schema if exists ${other} cascade`);
  });

  it("lists the current schema's tables and views, and nothing of another schema", async () => {
    const tables = await database.db.introspection.getTables();
    expect(tables.map((t) => [t.schema, t.name, t.isView]).sort()).toEqual([
      [mine, 'here', false],
      [mine, 'here_view', true],
    ]);
    expect(await database.db.introspection.getSchemas()).toEqual([{ name: mine }]);
  });

  it('is not disturbed by a schema dropped while it reads', async () => {
    const reads = Array.from({ length: 20 }, () => database.db.introspection.getTables());
    const drops = Array.from({ length: 5 }, (_, i) =>
      admin(
        `create schema ${other}_${i}; create table ${other}_${i}.t (id integer); drop schema ${other}_${i} cascade`,
      ),
    );
    const results = await Promise.all(reads);
    await Promise.all(drops);
    for (const tables of results) expect(tables.map((t) => t.name).sort()).toEqual(['here', 'here_view']);
  });
});
