import type { CompiledQuery, Compilable, Kysely } from 'kysely';
import type { Db } from './database.ts';
import type { Schema } from './schema.ts';

// Kysely builds and compiles a query on every call, which costs more than running a small indexed
// query. A precompiled query is built once, with a placeholder for each argument, and then run
// with the arguments put in the placeholders' positions. Only for queries whose shape does not
// depend on the arguments (no IN-lists of varying length, no optional clauses).

const PLACEHOLDER = '\u0000parley-arg-';

/**
 * Runs a read at once, synchronously, or answers undefined when it cannot (SQLite with a
 * transaction open on the connection, whose uncommitted writes the read would see). Registered by
 * the SQLite dialect for its root handle only, so it skips Kysely's asynchronous driver path.
 */
export type DirectReader = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined;
export const directReaders = new WeakMap<object, DirectReader>();

export function precompiled<Args extends unknown[], Row>(
  db: Db,
  build: (db: Kysely<Schema>, ...args: Args) => Compilable<Row>,
): (...args: Args) => Promise<Row[]> {
  let compiled: CompiledQuery<Row> | undefined;
  let slots: (number | undefined)[] = [];
  return async (...args) => {
    if (!compiled) {
      const placeholders = args.map((_, i) => `${PLACEHOLDER}${i}`) as Args;
      compiled = build(db as Kysely<Schema>, ...placeholders).compile();
      slots = compiled.parameters.map((p) =>
        typeof p === 'string' && p.startsWith(PLACEHOLDER) ? Number(p.slice(PLACEHOLDER.length)) : undefined,
      );
    }
    const template = compiled;
    const parameters = template.parameters.map((p, i) => {
      const slot = slots[i];
      return slot === undefined ? p : args[slot];
    });
    const direct = directReaders.get(db)?.(template.sql, parameters);
    if (direct) return direct as Row[];
    const result = await db.executeQuery<Row>({ ...template, parameters });
    return result.rows;
  };
}
