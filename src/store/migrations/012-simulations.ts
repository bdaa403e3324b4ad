import type { Kysely, Migration } from 'kysely';
import type { DialectName } from '../database.ts';
import { columnTypes } from './column-types.ts';

// Simulations: suites (attached to one agent), cases (in a suite or not), and, for the execution
// work, sessions (one run of a suite) and simulations (one case within a session), created empty
// here so that execution needs no migration of its own.
//
// `name_folded` is the name lowercased in JavaScript when written: searching it with LIKE on a
// lowercased term behaves the same on both dialects, non-ASCII letters included (SQLite's lower()
// and LIKE fold ASCII only, PostgreSQL's fold by locale).
export function simulations(dialect: DialectName): Migration {
  const t = columnTypes(dialect);
  return {
    async up(db: Kysely<unknown>) {
      await t
        .seq(db.schema.createTable('simulation_suites'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_folded', 'text', (c) => c.notNull())
        .addColumn('model_id', 'text', (c) => c.notNull())
        .addColumn('language', 'text', (c) => c.notNull().defaultTo('en-US'))
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('simulation_suites_workspace')
        .on('simulation_suites')
        .columns(['workspace_id', 'seq'])
        .execute();
      await db.schema
        .createIndex('simulation_suites_model')
        .on('simulation_suites')
        .columns(['workspace_id', 'model_id'])
        .execute();

      await t
        .seq(db.schema.createTable('simulation_cases'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('suite_id', 'text')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_folded', 'text', (c) => c.notNull())
        .addColumn('prompt', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('success_criteria', t.json, (c) => c.notNull())
        .addColumn('call_success_type', 'text', (c) => c.notNull())
        .addColumn('base_agent_id', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('simulation_cases_workspace')
        .on('simulation_cases')
        .columns(['workspace_id', 'seq'])
        .execute();
      await db.schema
        .createIndex('simulation_cases_suite')
        .on('simulation_cases')
        .columns(['suite_id', 'seq'])
        .execute();
      await db.schema
        .createIndex('simulation_cases_base_agent')
        .on('simulation_cases')
        .columns(['workspace_id', 'base_agent_id'])
        .execute();

      await t
        .seq(db.schema.createTable('simulation_sessions'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('suite_id', 'text', (c) => c.notNull())
        .addColumn('model_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('max_turns', 'integer', (c) => c.notNull())
        .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('completed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('simulation_sessions_workspace')
        .on('simulation_sessions')
        .columns(['workspace_id', 'seq'])
        .execute();
      await db.schema
        .createIndex('simulation_sessions_suite')
        .on('simulation_sessions')
        .columns(['suite_id', 'seq'])
        .execute();

      await t
        .seq(db.schema.createTable('simulations'))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('case_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('passed', 'integer')
        .addColumn('criteria_results', t.json)
        .addColumn('transcript', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('turns', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'text')
        .addColumn('created_at', t.bigint, (c) => c.notNull())
        .addColumn('updated_at', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('simulations_session')
        .on('simulations')
        .columns(['session_id', 'seq'])
        .execute();
    },
  };
}
